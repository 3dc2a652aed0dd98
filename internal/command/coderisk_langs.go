package command

import (
	"strings"
)

// The rules codeRisk reads JavaScript, Perl, Ruby, PHP, awk and SQLite's
// shell by (Python's are in coderisk.go).

// JavaScript (node -e, node -p, bun -e, deno eval): the words that reach
// modules, the global object, the Function constructor or code from a
// string; process beyond its plain data (process.version, .argv, .env,
// .stdout ...); require of anything but a few pure modules and .json files;
// and a property named by a computed value (o[k]: k may be "constructor").
// Words in strings count too: a string is one o[...] away from a name.
var jsWords = wordSet(`import child_process fs eval Function constructor globalThis global module Reflect Deno
	Bun WebAssembly getPrototypeOf setPrototypeOf getOwnPropertyDescriptor getOwnPropertyDescriptors
	getOwnPropertyNames setTimeout setInterval fetch XMLHttpRequest WebSocket Worker vm dlopen binding
	mainModule prepareStackTrace caller callee`)

var jsProcess = wordSet(`version versions argv env platform arch stdout stderr stdin exit exitCode cwd pid ppid
	hrtime memoryUsage uptime release title nextTick on once emitWarning execPath config features`)

var jsModules = wordSet(`os path util url crypto assert events querystring string_decoder buffer zlib readline punycode`)

var (
	jsRequireArg = newLazyRE(`^\s*\(\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")\s*\)`)
	jsIndex      = newLazyRE(`^\s*(?:\d+|'[^'\\\n]*'|"[^"\\\n]*")\s*$`)
	jsEscape     = newLazyRE(`\\u[0-9a-fA-F{]`)
	jsAttr       = newLazyRE(`^\s*\??\.\s*([A-Za-z_$][A-Za-z0-9_$]*)`)
)

func jsRisk(code string) string {
	m := maskStrings(code, `'"`, 0, "")
	if nonASCII(m) || jsEscape.MatchString(m) {
		return "an escaped or non-ASCII name" // \u0065val is eval
	}
	for _, t := range idents(code, true) {
		w := t.s
		switch {
		case strings.Contains(w, "__") || jsWords.has(w):
			return w
		case w == "process":
			m := jsAttr.FindStringSubmatch(code[t.end:])
			if m == nil {
				return "process"
			}
			if !jsProcess.has(m[1]) {
				return "process." + m[1]
			}
		case w == "require":
			m := jsRequireArg.FindStringSubmatch(code[t.end:])
			if m == nil {
				return "require"
			}
			mod := strings.TrimPrefix(m[1]+m[2], "node:")
			if !jsModules.has(mod) && !strings.HasSuffix(mod, ".json") {
				return "require " + mod
			}
		}
	}
	if computedIndex(m, code) {
		return "a computed property name"
	}
	return ""
}

// computedIndex reports whether code (m with its strings blanked) reads a
// property by a computed name: x[expr] where expr is not a number or a
// string literal.
func computedIndex(m, code string) bool {
	for i := 0; i < len(m); i++ {
		if m[i] != '[' {
			continue
		}
		k := i - 1
		for k >= 0 && (m[k] == ' ' || m[k] == '\t' || m[k] == '\n') {
			k--
		}
		if k < 0 || !(isIdentByte(m[k], true) || m[k] == ')' || m[k] == ']' || m[k] == '.') {
			continue // an array literal
		}
		end := strings.IndexByte(m[i+1:], ']')
		if end < 0 || strings.IndexByte(m[i+1:i+1+end], '[') >= 0 || !jsIndex.MatchString(code[i+1:i+1+end]) {
			return true
		}
	}
	return false
}

// Perl: the words that start a command, open or change a file, load code,
// or reach a name at run time (can, symbolic references), @ARGV (the
// files <> opens, with open's pipe syntax), backticks, do FILE, use of a
// module outside perlModules, and s///ee (evaluates a string as code).
// Perl interpolates code into strings, so words in strings count.
var perlWords = wordSet(`system exec qx readpipe syscall open sysopen unlink rename link symlink chmod chown utime
	truncate mkdir rmdir eval require fork pipe socket dbmopen ARGV CORE UNIVERSAL can chroot creat remove mkfifo
	dump`)

var perlModules = wordSet(`strict warnings utf8 feature integer bigint bignum constant List::Util Scalar::Util
	Data::Dumper JSON::PP POSIX Time::Local Time::HiRes MIME::Base64 Digest::MD5 Digest::SHA Text::Wrap`)

var (
	perlSymbolic = newLazyRE(`&\s*[$\{]|->\s*\$|\*\{|%(?:main)?::|\$\{\s*["'\\]|\$\$`)
	perlModName  = newLazyRE(`^\s*([A-Za-z0-9_:.]+)`)
)

func perlRisk(code string) string {
	if strings.ContainsRune(code, '`') {
		return "`"
	}
	if perlSymbolic.MatchString(code) {
		return "a symbolic reference"
	}
	for _, t := range idents(code, false) {
		w := t.s
		switch {
		case perlWords.has(w):
			return w
		case w == "do" && t.next != '{':
			return "do FILE"
		case w == "use":
			if m := perlModName.FindStringSubmatch(code[t.end:]); m != nil && !perlModules.has(m[1]) && !isVersion(m[1]) {
				return "use " + m[1]
			}
		case perlEvalFlags(code, t):
			return "s///" + w
		}
	}
	return ""
}

func isVersion(s string) bool {
	return strings.Trim(s, "0123456789._v") == "" && s != ""
}

// perlEvalFlags reports whether a word is the flags of a substitution with
// two or more e (s/x/$code/ee evaluates a string): only flag letters, right
// after the closing delimiter.
func perlEvalFlags(code string, t token) bool {
	if strings.Count(t.s, "e") < 2 || strings.Trim(t.s, "msixpodualngcer") != "" || t.at == 0 {
		return false
	}
	d := code[t.at-1]
	return !isIdentByte(d, false) && strings.IndexByte(" \t\n$@%&*-:>", d) < 0
}

// Ruby: the words that start a command, touch files, load code or reach a
// name at run time (send, method, const_get); backticks and %x(); ARGV and
// $* (the files ARGF opens); any word with a double underscore; and
// load_file-style readers of a named file.
var rubyWords = wordSet(`system exec spawn syscall fork open popen popen2 popen3 Open3 IO File Dir FileUtils Pathname
	Kernel Process ObjectSpace Marshal eval instance_eval class_eval module_eval instance_exec class_exec send
	public_send method public_method instance_method define_method const_get require require_relative load
	autoload binding ARGV Fiddle Socket TCPSocket Net trap reopen`)

var rubyLibs = wordSet(`json set date time pp securerandom digest base64 bigdecimal prime English`)

var rubyX = newLazyRE(`%x[^A-Za-z0-9\s]`)

func rubyRisk(code string) string {
	switch {
	case strings.ContainsRune(code, '`'):
		return "`"
	case rubyX.MatchString(code):
		return "%x"
	case strings.Contains(code, "$*"):
		return "$*"
	}
	for _, t := range idents(code, false) {
		if t.s == "require" {
			if m := rubyRequire.FindStringSubmatch(code[t.end:]); m != nil && rubyLibs.has(m[1]+m[2]) {
				continue
			}
		}
		if strings.Contains(t.s, "__") || rubyWords.has(t.s) || strings.HasSuffix(t.s, "_file") {
			return t.s
		}
	}
	return ""
}

var rubyRequire = newLazyRE(`^\s*\(?\s*(?:'([a-z/_]+)'|"([a-z/_]+)")`)

// PHP makes any string a function name (array_map('sys'.'tem', ...)), so
// its inline code is read against a list of trusted words: every word that
// is not a variable must be on phpWords. Variable functions ($f()),
// variable variables, calls on an expression ((...)()), backticks and
// string interpolation of expressions are unseen. file_get_contents is
// fine with a string literal.
var phpWords = wordSet(`echo print printf sprintf vprintf number_format PHP_VERSION PHP_EOL PHP_OS PHP_OS_FAMILY
	PHP_INT_MAX PHP_INT_SIZE PHP_MAJOR_VERSION PHP_MINOR_VERSION phpversion php_uname phpinfo php_sapi_name
	json_encode json_decode JSON_PRETTY_PRINT JSON_UNESCAPED_SLASHES JSON_UNESCAPED_UNICODE JSON_THROW_ON_ERROR
	var_dump var_export print_r strlen strtoupper strtolower ucfirst lcfirst ucwords str_repeat str_pad
	str_replace substr strrev trim ltrim rtrim implode explode count array true false null TRUE FALSE NULL date
	time mktime strtotime microtime hrtime md5 sha1 crc32 hash hash_algos base64_encode base64_decode bin2hex
	hex2bin random_bytes random_int rand mt_rand uniqid round floor ceil abs intval floatval strval boolval max min
	range array_sum array_keys array_values in_array extension_loaded get_loaded_extensions ini_get
	memory_get_usage memory_get_peak_usage password_hash password_verify PASSWORD_DEFAULT PASSWORD_BCRYPT
	htmlspecialchars urlencode rawurlencode urldecode http_build_query sort rsort ksort asort is_array is_string
	is_int isset empty foreach as if else elseif for while return exit die new DateTime format
	file_get_contents`)

var phpSafeIni = wordSet(`memory_limit display_errors error_reporting date.timezone max_execution_time
	html_errors log_errors precision serialize_precision`)

var phpDynamic = newLazyRE("`|\\$\\s*[$\\{]|\\$\\w+\\s*\\(|[)\\]}]\\s*\\(|new\\s*\\$")

var phpInterp = newLazyRE(`"[^"]*(?:\{\$|\$\{)`)

func phpRisk(code string) string {
	m := maskStrings(code, `'"`, 0, "")
	if phpDynamic.MatchString(m) {
		return "a name computed at run time"
	}
	if phpInterp.MatchString(code) {
		return "an expression in a string"
	}
	for _, t := range idents(m, false) {
		if t.prev == '$' {
			continue
		}
		if t.s == "file_get_contents" && !pyOpenLiteral.MatchString(code[t.end:]) {
			return "file_get_contents with a computed name"
		}
		if !phpWords.has(t.s) {
			return t.s
		}
	}
	return ""
}

// SQLite's shell: dot commands other than a few that only show things
// (.shell, .system, .load, .output, .read, .import ...), and the SQL
// functions that run programs or touch files (edit, readfile, writefile,
// load_extension, fsdir), ATTACH and VACUUM INTO.
var sqlDotOK = wordSet(`.tables .schema .headers .mode .indexes .indices .databases .timer .width .show .help
	.dump .nullvalue .separator .print .changes .eqp .stats .version .fullschema .dbinfo .bail .echo`)

var sqlWords = wordSet(`load_extension edit writefile readfile fsdir attach`)

func sqlRisk(code string) string {
	for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, ".") {
			if cmd := strings.Fields(l)[0]; !sqlDotOK.has(strings.ToLower(cmd)) {
				return cmd
			}
		}
	}
	toks := idents(maskStrings(code, `'"`, 0, ""), false)
	for i, t := range toks {
		w := strings.ToLower(t.s)
		if sqlWords.has(w) {
			return w
		}
		if w == "vacuum" && i+1 < len(toks) && strings.EqualFold(toks[i+1].s, "into") {
			return "vacuum into"
		}
	}
	return ""
}
