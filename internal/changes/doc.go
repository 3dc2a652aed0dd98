// Package changes keeps what a chat turn changed: before an allowed call may
// write a file (Edit, Write, MultiEdit, NotebookEdit, or a file a Bash line
// is seen to write), the file's pre-turn content is copied under the
// project's .vibing/turns/<chat>/<turn>/ folder, once per file and turn; at
// the end of the turn the files whose content differs from that copy are
// the turn's changes, kept with their content at the end of the turn so the
// editor can show a diff and revert a file without clobbering a later edit.
//
// Layout of one turn's folder (private: 0700 folders, 0600 files, every file
// written to a temporary name and renamed):
//
//	manifest.json   Manifest: the chat, the turn, one Entry per file
//	1.before        file 1 as it was before the turn (absent: it did not exist)
//	1.after         file 1 as it was at the end of the turn
//
// A turn that changed nothing leaves no folder; a chat keeps its last Keep
// turns; ForgetChat removes a chat's folder when the chat is deleted.
package changes
