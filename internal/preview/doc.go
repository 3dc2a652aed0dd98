// Package preview builds what a person sees of a tool call before approving
// it (SPEC §10): unified diffs of file edits against the files as they are
// now, a new file's size and first lines, a Bash line with the effects read
// from matcher's one model of the command, a fetch's host and URL, or the
// input as indented JSON. The runner puts it in approval_request events;
// `vibing-agent check --preview` prints the same. Detail and Describe name a
// tool call in one string for every event and denial message.
package preview
