package builtins

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The v0.1 releases run go.starlark.net of March 2020 in its default
// dialect: no float literals, float() or /, no lambda, no nested def, no
// set, no while, no if/for or reassignment at the top level, no recursion,
// no abs or bytes, strings without removeprefix/removesuffix, and a string
// literal keeping an escape it does not know (\d, \u00e9) as written.
// porchbot runs today's go.starlark.net in its standard dialect, after
// checkStarlark2020 has reported what the old one reported before running a
// program, or refused what today's would read or run otherwise.

// doesnt2020 begins the old resolver's dialect errors.
const doesnt2020 = "this Starlark dialect does not "

// universe2020 are the old Starlark's built-in names (float among them, its
// use an error of the dialect).
var universe2020 = map[string]bool{
	"None": true, "True": true, "False": true, "any": true, "all": true, "bool": true, "chr": true,
	"dict": true, "dir": true, "enumerate": true, "fail": true, "float": true, "getattr": true,
	"hasattr": true, "hash": true, "int": true, "len": true, "list": true, "max": true, "min": true,
	"ord": true, "print": true, "range": true, "repr": true, "reversed": true, "set": true,
	"sorted": true, "str": true, "tuple": true, "type": true, "zip": true,
}

// newStringMethods are the string methods today's Starlark has and the old
// one had not.
var newStringMethods = map[string]bool{"removeprefix": true, "removesuffix": true}

// refusal2020 is porchbot refusing a program the two Starlarks read or run
// differently.
func refusal2020(what string) error {
	return fmt.Errorf("the program %s, which starlark v0.1.x's Starlark (of March 2020) reads or runs otherwise "+
		"than porchbot's; porchbot refuses it: pin starlark v0.2.0 or later", what)
}

// reservedNow are the words today's Starlark reserves and the old one read
// as names (async, await) or as an illegal token, reported elsewhere.
var reservedNow = regexp.MustCompile(`\bgot (as|async|await|class|del|except|finally|from|global|import|is|nonlocal|raise|try|with|yield),`)

// checkStarlark2020 reports the error the old Starlark reported before
// running the program (its syntax error or first resolver error), or
// refuses the program.
func checkStarlark2020(name, source string) error {
	f, err := (&syntax.FileOptions{}).Parse(name, source, 0)
	if err != nil {
		var se syntax.Error
		switch {
		case errors.As(err, &se) && strings.Contains(se.Msg, "escape"):
			return refusal2020("has a string escape today's Starlark refuses (the old one kept an unknown escape as written)")
		case errors.As(err, &se) && reservedNow.MatchString(se.Msg):
			return refusal2020("uses a word today's Starlark reserves (" + se.Msg + ")")
		case errors.As(err, &se) && strings.Contains(se.Msg, "excessive nesting"):
			return refusal2020("nests deeper than today's Starlark parses")
		}
		return newlineOnNextLine(err, source)
	}
	var bytesLit bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if lit, ok := n.(*syntax.Literal); ok && lit.Token == syntax.BYTES {
			bytesLit = true
		}
		return true
	})
	if bytesLit {
		return refusal2020("has a bytes literal (b\"…\")")
	}
	w := &dialect2020{}
	for i, s := range f.Stmts {
		w.stmt(i, s)
	}
	rerr := resolve.File(f, func(n string) bool { return n == "ctx" || builtins2020[n] != nil }, func(n string) bool {
		return universe2020[n] && n != "float"
	})
	if err := firstError2020(f, w.errs, rerr); err != nil {
		return err
	}
	return runsOtherwise2020(f)
}

// runsOtherwise2020 refuses what both Starlarks accept but run differently.
func runsOtherwise2020(f *syntax.File) error {
	var why string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Literal:
			if n.Token == syntax.STRING && hasUnicodeEscape(n.Raw) {
				why = "has a \\u or \\U escape in a string (the old Starlark kept it as written)"
			}
		case *syntax.DotExpr:
			if newStringMethods[n.Name.Name] {
				why = "calls ." + n.Name.Name + " (the old Starlark's strings have none)"
			}
		case *syntax.AssignStmt:
			if n.Op == syntax.SLASH_EQ {
				why = "divides with /= (the old Starlark wrote the float it makes as %g with six digits)"
			}
		case *syntax.BinaryExpr:
			if lit, ok := n.X.(*syntax.Literal); ok && n.Op == syntax.PERCENT && lit.Token == syntax.STRING && hasGConversion(lit.Value.(string)) {
				why = "formats with %g (the old Starlark wrote 3 where today's writes 3.0)"
			}
		}
		return why == ""
	})
	if why != "" {
		return refusal2020(why)
	}
	return nil
}

// hasUnicodeEscape reports \u or \U escapes in a string literal as written
// (not a raw one).
func hasUnicodeEscape(raw string) bool {
	if strings.HasPrefix(raw, "r") {
		return false
	}
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] == '\\' {
			if raw[i+1] == 'u' || raw[i+1] == 'U' {
				return true
			}
			i++
		}
	}
	return false
}

// hasGConversion reports a %g or %G conversion in a format string.
func hasGConversion(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(format) && format[j] == '(' {
			for j < len(format) && format[j] != ')' {
				j++
			}
			j++
		}
		if j < len(format) && (format[j] == 'g' || format[j] == 'G') {
			return true
		}
		i = j
	}
	return false
}

// A dialect2020 walks a file as the old resolver did, collecting the errors
// of its dialect today's resolver does not report, in the order the old one
// reported them, with the index of the top-level statement they are in.
type dialect2020 struct {
	errs      []stmtError
	top       int
	functions int
}

type stmtError struct {
	err resolve.Error
	top int
}

func (w *dialect2020) errorf(pos syntax.Position, format string, args ...any) {
	w.errs = append(w.errs, stmtError{resolve.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}, w.top})
}

func (w *dialect2020) stmt(top int, s syntax.Stmt) {
	w.top = top
	w.walkStmt(s)
}

func (w *dialect2020) stmts(ss []syntax.Stmt) {
	for _, s := range ss {
		w.walkStmt(s)
	}
}

func (w *dialect2020) walkStmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.ExprStmt:
		w.expr(s.X)
	case *syntax.IfStmt:
		w.block(s.Cond, s.True, s.False)
	case *syntax.AssignStmt:
		w.expr(s.RHS)
		w.assign(s.LHS)
	case *syntax.DefStmt:
		if w.functions > 0 {
			w.errorf(s.Def, doesnt2020+"support nested def")
		}
		w.function(s.Params, s.Body, nil)
	case *syntax.ForStmt:
		w.expr(s.X)
		w.assign(s.Vars)
		w.stmts(s.Body)
	case *syntax.WhileStmt:
		w.block(s.Cond, s.Body)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			w.expr(s.Result)
		}
	}
}

// block walks a condition, then the statements it governs.
func (w *dialect2020) block(cond syntax.Expr, bodies ...[]syntax.Stmt) {
	w.expr(cond)
	for _, b := range bodies {
		w.stmts(b)
	}
}

func (w *dialect2020) function(params []syntax.Expr, body []syntax.Stmt, result syntax.Expr) {
	for _, p := range params {
		if b, ok := p.(*syntax.BinaryExpr); ok {
			w.expr(b.Y)
		}
	}
	w.functions++
	w.stmts(body)
	if result != nil {
		w.expr(result)
	}
	w.functions--
}

func (w *dialect2020) assign(lhs syntax.Expr) {
	switch lhs := lhs.(type) {
	case *syntax.IndexExpr:
		w.expr(lhs.X)
		w.expr(lhs.Y)
	case *syntax.DotExpr:
		w.expr(lhs.X)
	case *syntax.TupleExpr:
		if len(lhs.List) == 0 {
			w.errorf(syntax.Start(lhs), "can't assign to ()")
		}
		for _, e := range lhs.List {
			w.assign(e)
		}
	case *syntax.ListExpr:
		if len(lhs.List) == 0 {
			w.errorf(syntax.Start(lhs), "can't assign to []")
		}
		for _, e := range lhs.List {
			w.assign(e)
		}
	case *syntax.ParenExpr:
		w.assign(lhs.X)
	}
}

func (w *dialect2020) expr(e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.Literal:
		if e.Token == syntax.FLOAT {
			w.errorf(e.TokenPos, doesnt2020+"support floating point")
		}
	case *syntax.ListExpr:
		w.exprs(e.List)
	case *syntax.TupleExpr:
		w.exprs(e.List)
	case *syntax.CondExpr:
		w.exprs([]syntax.Expr{e.Cond, e.True, e.False})
	case *syntax.IndexExpr:
		w.exprs([]syntax.Expr{e.X, e.Y})
	case *syntax.DictEntry:
		w.exprs([]syntax.Expr{e.Key, e.Value})
	case *syntax.DictExpr:
		w.exprs(e.List)
	case *syntax.SliceExpr:
		w.exprs([]syntax.Expr{e.X, e.Lo, e.Hi, e.Step})
	case *syntax.Comprehension:
		w.comprehension(e)
	case *syntax.UnaryExpr:
		w.expr(e.X)
	case *syntax.BinaryExpr:
		if e.Op == syntax.SLASH {
			w.errorf(e.OpPos, doesnt2020+"support floating point (use //)")
		}
		w.exprs([]syntax.Expr{e.X, e.Y})
	case *syntax.DotExpr:
		w.expr(e.X)
	case *syntax.CallExpr:
		w.expr(e.Fn)
		for _, a := range e.Args {
			if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
				w.expr(b.Y)
				continue
			}
			w.expr(a)
		}
	case *syntax.LambdaExpr:
		w.errorf(e.Lambda, doesnt2020+"support lambda")
		w.function(e.Params, nil, e.Body)
	case *syntax.ParenExpr:
		w.expr(e.X)
	}
}

// comprehension walks the first clause's operand, then its variables, then
// each other clause (a for clause's variables before its operand), then the
// body.
func (w *dialect2020) comprehension(e *syntax.Comprehension) {
	for i, c := range e.Clauses {
		if c, ok := c.(*syntax.IfClause); ok {
			w.expr(c.Cond)
			continue
		}
		f := c.(*syntax.ForClause)
		if i == 0 {
			w.expr(f.X)
		}
		w.assign(f.Vars)
		if i > 0 {
			w.expr(f.X)
		}
	}
	w.expr(e.Body)
}

func (w *dialect2020) exprs(es []syntax.Expr) {
	for _, e := range es {
		if e != nil {
			w.expr(e)
		}
	}
}

// firstError2020 is the error the old resolver reported first: its
// immediate errors (all but those of names) come in the order of its walk,
// those of names after all of them. Today's resolver reports the same as
// the old one but for the dialect's errors (w), some words and its
// "keyword argument may not follow *args" (not an error then). Where the
// first of the dialect's errors and the first of the others are in the same
// top-level statement, which came first is not known: porchbot refuses.
func firstError2020(f *syntax.File, w []stmtError, rerr error) error {
	var imm, names []resolve.Error
	kwAfterStar := false
	var list resolve.ErrorList
	if rerr != nil && !errors.As(rerr, &list) {
		return rerr
	}
	for _, e := range list {
		switch {
		case e.Msg == "keyword argument may not follow *args":
			kwAfterStar = true
			continue
		case strings.HasPrefix(e.Msg, "load statement within a "):
			continue // after the error of the loop or if it is in
		case e.Msg == "undefined: float" || strings.HasPrefix(e.Msg, "undefined: float "):
			e.Msg = doesnt2020 + "support floating point"
			names = append(names, e)
			continue
		case strings.HasPrefix(e.Msg, "undefined: ") || e.Msg == doesnt2020+"support sets":
			names = append(names, e)
			continue
		}
		e.Msg = callArgs2020.Replace(e.Msg)
		if m := repeatedKeyword.FindStringSubmatch(e.Msg); m != nil {
			if name, err := strconv.Unquote(m[1]); err == nil {
				e.Msg = "keyword argument " + name + " repeated"
			}
		}
		imm = append(imm, e)
	}
	switch {
	case len(w) > 0 && len(imm) > 0:
		rtop := topStatement(f, imm[0].Pos)
		if rtop == w[0].top {
			return refusal2020(fmt.Sprintf("has errors of two kinds in one statement (%s; %s)", w[0].err, imm[0]))
		}
		if rtop < w[0].top {
			return imm[0]
		}
		return w[0].err
	case len(w) > 0:
		return w[0].err
	case len(imm) > 0:
		return imm[0]
	case len(names) > 0:
		return names[0]
	case kwAfterStar:
		return refusal2020("passes a keyword argument after *args")
	}
	return nil
}

// callArgs2020 words today's resolver's errors of a call's arguments as the
// old one did.
var callArgs2020 = strings.NewReplacer(
	"keyword argument may not follow **kwargs", "argument may not follow **kwargs",
	"positional argument may not follow *args", "argument may not follow *args",
	"positional argument may not follow **kwargs", "argument may not follow **kwargs")

var repeatedKeyword = regexp.MustCompile(`^keyword argument ("[^"]*") is repeated$`)

// topStatement is the index of the top-level statement holding pos.
func topStatement(f *syntax.File, pos syntax.Position) int {
	for i, s := range f.Stmts {
		if _, end := s.Span(); pos.Line < end.Line || pos.Line == end.Line && pos.Col <= end.Col {
			return i
		}
	}
	return len(f.Stmts)
}

// builtins2020 stand in for the built-ins whose answers name today's string
// methods: dir, getattr and hasattr answer for a string as the old ones did.
var builtins2020 = starlark.StringDict{
	"dir":     starlark.NewBuiltin("dir", dir2020),
	"getattr": starlark.NewBuiltin("getattr", getattr2020),
	"hasattr": starlark.NewBuiltin("hasattr", hasattr2020),
}

func dir2020(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, err := starlark.Call(thread, starlark.Universe["dir"], args, kwargs)
	if err != nil || len(args) != 1 {
		return v, err
	}
	if _, ok := args[0].(starlark.String); !ok {
		return v, nil
	}
	l, ok := v.(*starlark.List)
	if !ok {
		return v, nil
	}
	var names []starlark.Value
	for _, n := range listElems(l) {
		if s, ok := n.(starlark.String); !ok || !newStringMethods[string(s)] {
			names = append(names, n)
		}
	}
	return starlark.NewList(names), nil
}

func listElems(l *starlark.List) []starlark.Value {
	out := make([]starlark.Value, l.Len())
	for i := range out {
		out[i] = l.Index(i)
	}
	return out
}

// oldStringMethod reports a call of getattr or hasattr on a string with a
// method name the old Starlark's strings lacked.
func oldStringMethod(args starlark.Tuple) bool {
	if len(args) < 2 {
		return false
	}
	_, isString := args[0].(starlark.String)
	name, _ := starlark.AsString(args[1])
	return isString && newStringMethods[name]
}

func getattr2020(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) == 0 && oldStringMethod(args) {
		if len(args) == 3 {
			return args[2], nil
		}
		if len(args) == 2 {
			name, _ := starlark.AsString(args[1])
			return nil, fmt.Errorf("getattr: string has no .%s field or method", name)
		}
	}
	return starlark.Call(thread, starlark.Universe["getattr"], args, kwargs)
}

func hasattr2020(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 2 && len(kwargs) == 0 && oldStringMethod(args) {
		return starlark.False, nil
	}
	return starlark.Call(thread, starlark.Universe["hasattr"], args, kwargs)
}
