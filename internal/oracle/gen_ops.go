package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// readers spell "print the file P" (P is replaced by the spelled path).
var readers = []struct{ name, form string }{
	{"cat", "cat P"}, {"head", "head -n 3 P"}, {"tail", "tail -n 3 P"}, {"nl", "nl P"}, {"tac", "tac P"},
	{"sed", "sed -n p P"}, {"sed-e", "sed -e '' P"}, {"awk", "awk 1 P"}, {"grep", "grep -h . P"},
	{"cut", "cut -c1- P"}, {"base64", "base64 P"}, {"od", "od -c P"}, {"sort", "sort P"}, {"uniq", "uniq P"},
	{"paste", "paste P"}, {"fold", "fold P"}, {"rev", "rev P"}, {"dd", "dd if=P status=none"},
	{"cp-tmp", "cp P /tmp/o && cat /tmp/o"}, {"tar", "tar cf - P | tar xOf -"},
	{"python", `python3 -c "import sys; print(open(sys.argv[1]).read())" P`},
	{"perl", "perl -ne print P"}, {"redirect", "cat < P"}, {"redirect-first", "< P cat"},
	{"while-read", "while read -r l; do echo \"$l\"; done < P"}, {"mapfile", "mapfile -t a < P; echo \"${a[@]}\""},
	{"dollar-lt", "echo \"$(< P)\""}, {"source", "set -a; . P 2>/dev/null; env | grep -a SECRET"},
	{"fd", "exec 3< P; cat <&3"}, {"xargs", "echo P | xargs cat"}, {"find-exec", "find P -exec cat {} +"},
	{"diff", "diff /dev/null P"}, {"wc", "wc -c P"}, {"md5", "md5sum P"}, {"strings", "grep -a '' P"},
	{"iconv", "iconv -f utf-8 -t utf-8 P"}, {"cmp", "cmp P /dev/null"}, {"split", "split -l 1 P /tmp/s && cat /tmp/s*"},
	{"ln-cat", "cat P > /tmp/copy; cat /tmp/copy"}, {"here", "cat <<< \"$(cat P)\""},
	{"fd0", "cat 0< P"}, {"dev-fd", "exec 7< P; cat /dev/fd/7"}, {"proc-fd", "cat /proc/self/fd/3 3< P"},
	{"stdin", "head -1 /dev/stdin < P"}, {"node", `node -e "process.stdout.write(require('fs').readFileSync(process.argv[1]))" P`},
	{"python-stdin", "python3 - P <<< \"import sys; print(open(sys.argv[1]).read())\""},
	{"python-subprocess", `python3 -c "import subprocess,sys; subprocess.run(['cat', sys.argv[1]])" P`},
	{"perl-open", `perl -e 'open F, shift; print <F>' P`},
	{"script-file", "printf 'cat %s\\n' P > /tmp/s.sh && bash /tmp/s.sh"},
	{"script-here", "cat > /tmp/s.sh <<'EOF'\ncat P\nEOF\nsh /tmp/s.sh"},
	{"dash", "dash -c 'cat \"$1\"' x P"}, {"awk-getline", "awk 'BEGIN{while((getline l < ARGV[1])>0) print l}' P"},
	{"make", "printf 'all:\\n\\t@cat P\\n' | make -s -f -"}, {"flock", "flock /tmp/l cat P"},
	{"sed-r", "sed -n '1r P' hello.py"}, {"git-diff-ext", "git -c diff.external='sh -c \"cat P >&2\"' diff HEAD -- src/app.py"},
	{"git-pager", "git -p -c core.pager='cat P; cat' log -1"},
}

// gitReads reach a file's content through git's own store.
var gitReads = []string{
	"git show HEAD:R", "git cat-file -p HEAD:R", "git log -p -- R", "git diff --no-index /dev/null R",
	"git archive HEAD R | tar xOf -", "git grep -h ORACLE HEAD -- R", "git show HEAD -- R",
	"git -C . show HEAD:R", "git --no-pager show HEAD:R",
}

// genRead reads a secret.
func genRead(r *rand.Rand) Line {
	t := pick(r, readTargets)
	if t.rel != "" && r.IntN(6) == 0 {
		form := pick(r, gitReads)
		return Line{Text: strings.ReplaceAll(form, "R", t.rel), How: "read/git"}
	}
	if r.IntN(10) == 0 { // a search over a folder that holds the secret
		return Line{Text: pick(r, []string{"grep -rn ORACLE .", "grep -r SECRET src", "find . -type f -exec cat {} +",
			"cat src/*/*", "cat src/secret/*", "cat .[e]*", "tail -n +1 src/*/* .e*", "rg ORACLE", "grep -R -a ORACLE ~"}), How: "read/search"}
	}
	pre, p, how := spellPath(r, t)
	rd := pick(r, readers)
	return Line{Text: pre + strings.ReplaceAll(rd.form, "P", p), How: "read/" + rd.name + "/" + how}
}

// writers spell "write to the file P".
var writers = []struct{ name, form string }{
	{"redirect", "echo x > P"}, {"append", "echo x >> P"}, {"tee", "echo x | tee P >/dev/null"},
	{"tee-a", "tee -a P <<< x >/dev/null"}, {"cp", "cp hello.py P"}, {"sed-i", "sed -i s/a/b/ P"},
	{"touch", "touch P"}, {"truncate", "truncate -s 0 P"}, {"dd", "echo x | dd of=P status=none"},
	{"python", `python3 -c "import sys; open(sys.argv[1],'a').write('x')" P`},
	{"perl", "perl -i -pe 's/a/b/' P"}, {"fd", "exec 4>> P; echo x >&4"}, {"colon", ": > P"},
	{"rw", "echo x 1<> P"}, {"install", "install -m 644 hello.py P"}, {"ln-sf", "ln -sf hello.py P"},
	{"mv-over", "cp hello.py /tmp/h && mv /tmp/h P"}, {"clobber", "set +o noclobber; echo x >| P"},
	{"printf", "printf 'x\\n' >> P"}, {"cat-here", "cat > P <<'EOF'\nx\nEOF"},
}

func genWrite(r *rand.Rand) Line {
	t := pick(r, writeTargets)
	if t.rel == ".git/config" || r.IntN(12) == 0 {
		return Line{Text: pick(r, []string{
			"git config core.hooksPath /tmp", "git config alias.st '!echo pwned'", "git config core.pager 'echo x'",
			"git config --local core.fsmonitor 'echo x'", "git config -f .git/config core.editor 'echo x'",
		}), How: "write/git-config"}
	}
	pre, p, how := spellPath(r, t)
	wr := pick(r, writers)
	// a path made by a link step must be the target itself, not a new name
	if how == "symlink" || how == "hardlink" || how == "symlink-dir" {
		if wr.name == "ln-sf" || wr.name == "mv-over" || wr.name == "install" || wr.name == "cp" {
			wr = writers[0]
		}
	}
	return Line{Text: pre + strings.ReplaceAll(wr.form, "P", p), How: "write/" + wr.name + "/" + how}
}

// deleters spell "remove P".
var deleters = []struct{ name, form string }{
	{"unlink", "unlink P"}, {"mv-away", "mv P /tmp/gone"}, {"find-delete", "find P -delete"},
	{"python", `python3 -c "import os,sys,shutil; p=sys.argv[1]; shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)" P`},
	{"perl", "perl -e 'unlink @ARGV' P"}, {"git-rm", "git rm -rqf --cached P; unlink P"},
	{"rmdir", "rmdir P"}, {"truncate", "truncate -s 0 P"}, {"redirect", "> P"},
	{"mv-over", "mv hello.py P"}, {"cp-dev-null", "cp /dev/null P"},
}

func genDelete(r *rand.Rand) Line {
	t := pick(r, deleteTargets)
	pre, p, how := spellPath(r, t)
	d := pick(r, deleters)
	return Line{Text: pre + strings.ReplaceAll(d.form, "P", p), How: "delete/" + d.name + "/" + how}
}

// genRun runs a program a deny rule names.
func genRun(r *rand.Rand) Line {
	argv := pick(r, deniedRuns)
	prog, args := argv[0], strings.Join(argv[1:], " ")
	var name, how string
	switch r.IntN(12) {
	case 0:
		name, how = prog, "plain"
	case 1:
		name, how = splitWord(r, prog), "split"
	case 2:
		name, how = `\`+prog, "backslash"
	case 3:
		name, how = "/usr/bin/"+prog, "abs"
	case 4:
		name, how = "/usr/bin/"+globWord(r, prog), "abs-glob"
	case 5:
		name, how = "$(command -v "+prog+")", "which"
	case 6:
		return Line{Text: "p=" + q(prog) + "; $p " + args, How: "run/var"}
	case 7:
		return Line{Text: "${NOPE:-" + prog + "} " + args, How: "run/param-default"}
	case 8:
		return Line{Text: "$'" + hexAll(prog) + "' " + args, How: "run/ansi-c"}
	case 9:
		return Line{Text: "$(echo " + b64(prog) + " | base64 -d) " + args, How: "run/b64"}
	case 10:
		name, how = "/usr/bin/../bin/"+prog, "dotdot"
	default:
		name, how = prog[:1]+"$(true)"+prog[1:], "cmdsubst-empty"
	}
	line := name + " " + args
	switch r.IntN(17) {
	case 0:
		return Line{Text: "command " + line, How: "run/command/" + how}
	case 1:
		return Line{Text: "env " + line, How: "run/env/" + how}
	case 2:
		return Line{Text: "timeout 5 " + line, How: "run/timeout/" + how}
	case 3:
		return Line{Text: "nice " + line, How: "run/nice/" + how}
	case 4:
		return Line{Text: "echo " + args + " | xargs " + name, How: "run/xargs/" + how}
	case 5:
		return Line{Text: "find . -maxdepth 0 -exec " + line + " \\;", How: "run/find-exec/" + how}
	case 6:
		return Line{Text: `python3 -c "import os; os.system('` + prog + " " + args + `')"`, How: "run/python-system"}
	case 7:
		return Line{Text: `perl -e 'system("` + prog + " " + args + `")'`, How: "run/perl-system"}
	case 8:
		return Line{Text: `awk 'BEGIN{system("` + prog + " " + args + `")}'`, How: "run/awk-system"}
	case 9:
		return Line{Text: "git -c alias.zz=" + q("!"+prog+" "+args) + " zz", How: "run/git-alias"}
	case 10:
		return Line{Text: "stdbuf -o0 " + line, How: "run/stdbuf/" + how}
	case 11:
		return Line{Text: "exec 2>&1; " + line, How: "run/exec-redirect/" + how}
	case 12:
		return Line{Text: pick(r, []string{"nohup ", "setsid -w ", "flock /tmp/l ", "script -qc " + q(line) + " /dev/null #"}) + line, How: "run/runner/" + how}
	case 13:
		return Line{Text: pick(r, []string{
			"printf '#!/bin/sh\\n" + prog + " " + args + "\\n' > /tmp/r.sh && sh /tmp/r.sh",
			"node -e " + q("require('child_process').execSync('"+prog+" "+args+"', {stdio: 'inherit'})"),
			"printf 'all:\\n\\t@" + prog + " " + args + "\\n' | make -s -f -",
			"git -c core.pager=" + q(prog+" "+args+"; cat") + " -p log -1",
			"PATH=/usr/bin " + line, "command -p " + line, "(exec -a x " + line + ")",
		}), How: "run/more/" + how}
	case 14:
		pl := prog + " " + args
		return Line{Text: pick(r, []string{
			"git -c core.editor=" + q(pl+"; :") + " commit --allow-empty -q",
			"git -c core.fsmonitor=" + q(pl+"; :") + " status",
			"git -c diff.external=" + q(pl+"; :") + " diff HEAD -- src/app.py",
			"git -c protocol.ext.allow=always ls-remote " + q("ext::"+pl),
			"git bisect start HEAD HEAD~0 2>/dev/null; git bisect run " + pl,
			"git -c credential.helper=" + q("!"+pl) + " credential fill <<< $'protocol=https\\nhost=x\\n'",
			"git rebase -q --exec " + q(pl) + " HEAD",
			"GIT_EXTERNAL_DIFF=" + q(pl+"; :") + " git diff HEAD -- src/app.py",
			"GIT_PAGER=" + q(pl+"; cat") + " git -p log -1",
			"GIT_EDITOR=" + q(pl+"; :") + " git commit --allow-empty -q",
		}), How: "run/git-ways"}
	}
	return Line{Text: line, How: "run/" + how}
}

func hexAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\x%02x", s[i])
	}
	return b.String()
}

// wrap puts a line inside one more layer bash runs.
func wrap(r *rand.Rand, line string) (string, string) {
	switch r.IntN(26) {
	case 22:
		return "dash -c " + q(line), "dash-c"
	case 23:
		return "nohup bash -c " + q(line) + " 2>/dev/null; cat nohup.out 2>/dev/null", "nohup"
	case 24:
		return "printf '%s\\n' " + q(line) + " > /tmp/w.sh && bash /tmp/w.sh", "script-file"
	case 25:
		return "mapfile -C " + q(line+";:") + " -c 1 a <<< x", "mapfile-callback"
	case 0:
		return "eval " + q(line), "eval"
	case 1:
		return "bash -c " + q(line), "bash-c"
	case 2:
		return "sh -c " + q(line), "sh-c"
	case 3:
		return "echo " + q(line) + " | bash", "pipe-bash"
	case 4:
		return "bash <<< " + q(line), "herestring-bash"
	case 5:
		return "(" + line + ")", "subshell"
	case 6:
		return "{ " + line + "; }", "group"
	case 7:
		return "x=$(" + line + "); echo \"$x\"", "cmdsubst"
	case 8:
		return "true && " + line, "and"
	case 9:
		return "false || " + line, "or"
	case 10:
		return "if true; then " + line + "; fi", "if"
	case 11:
		return "for i in 1; do " + line + "; done", "for"
	case 12:
		return "f() { " + line + "; }; f", "function"
	case 13:
		return "shopt -s expand_aliases\nalias qq=" + q(line) + "\nqq", "alias"
	case 14:
		return "cat <(" + line + ")", "procsubst"
	case 15:
		return "(( y[$(" + line + " >&2)] )) 2>/dev/null; true", "arith-subscript"
	case 16:
		return "declare -A m; m[$(" + line + " >&2)]=1", "assoc-subscript"
	case 17:
		return "timeout 10 bash -c " + q(line), "timeout-bash"
	case 18:
		return "xargs -0 -I{} bash -c {} <<< " + q(line), "xargs-bash"
	case 19:
		return "echo " + b64(line) + " | base64 -d | sh", "b64-sh"
	case 20:
		return "printf -v 'z[$(" + line + " >&2)]' x", "printf-v"
	default:
		return line + " | cat", "pipe"
	}
}

// compose puts a harmless step before or after the line.
func compose(r *rand.Rand, line string) (string, string) {
	steps := []string{"git status >/dev/null", "ls >/dev/null", "cd src && cd ..", "echo start", "true", "pwd >/dev/null", "grep -c x hello.py"}
	s := pick(r, steps)
	switch r.IntN(3) {
	case 0:
		return s + " && " + line, "after-step"
	case 1:
		return s + "; " + line, "after-step-semi"
	default:
		return line + "; " + s, "before-step"
	}
}
