package command

// maxTreeEntries bounds the files looked at when a command reads a whole
// folder (tar czf x.tgz ., grep -r KEY .) and a deny or ask rule names a
// file at any depth (Read(.env)): past it the rule fires.
const MaxTreeEntries = 20000
