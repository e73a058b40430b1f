package markdown

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// declaration is a declaration's text in its file, doc comment included.
type declaration struct {
	text        []byte
	first, last int // its lines, 1-based
}

// maxListed is how many declarations an error for a missing one names.
const maxListed = 8

// findDeclaration returns the declaration of symbol in the Go source src
// (named path in errors): "Name" for a function, a type or a name of a
// const or var block (the whole block is returned), "Type.Method" for a
// method. A type declared in a grouped "type ( ... )" comes alone,
// unindented.
func findDeclaration(path string, src []byte, symbol string) (declaration, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return declaration{}, err
	}
	var names []string // every declaration, in file order, for the error
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := funcName(d)
			names = append(names, name)
			if name == symbol {
				return span(fset, src, docStart(d.Doc, d.Pos()), d.End()), nil
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
					if s.Name.Name != symbol {
						continue
					}
					if d.Lparen.IsValid() {
						return dedent(span(fset, src, docStart(s.Doc, s.Pos()), s.End())), nil
					}
					return span(fset, src, docStart(d.Doc, d.Pos()), d.End()), nil
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == "_" {
							continue
						}
						names = append(names, n.Name)
						if n.Name == symbol {
							return span(fset, src, docStart(d.Doc, d.Pos()), d.End()), nil
						}
					}
				}
			}
		}
	}
	return declaration{}, errors.New("no such declaration (declarations: " + listNames(names, symbol) + ")")
}

// funcName is "Name" for a function and "Type.Name" for a method, whatever
// its receiver's form: T, *T, T[P], *T[P, Q].
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}

// docStart is where a declaration starts: at its doc comment, if any.
func docStart(doc *ast.CommentGroup, pos token.Pos) token.Pos {
	if doc != nil {
		return doc.Pos()
	}
	return pos
}

// span returns the whole lines of src from pos to end.
func span(fset *token.FileSet, src []byte, pos, end token.Pos) declaration {
	p, e := fset.Position(pos), fset.Position(end)
	start := p.Offset - (p.Column - 1) // the start of pos's line
	stop := e.Offset
	if i := bytes.IndexByte(src[stop:], '\n'); i >= 0 {
		stop += i + 1
	} else {
		stop = len(src)
	}
	return declaration{text: src[start:stop], first: p.Line, last: e.Line}
}

// dedent removes the indentation every non-blank line of d shares.
func dedent(d declaration) declaration {
	lines := strings.SplitAfter(string(d.text), "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		for !strings.HasPrefix(indent, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, prefix))
	}
	d.text = []byte(b.String())
	return d
}

// listNames lists up to maxListed of names for an error about symbol,
// those most like it first: the same name in another case, then those
// sharing a part of it ("Keeper" or "Do" for "Keeper.Run"), then the rest in
// file order.
func listNames(names []string, symbol string) string {
	if len(names) == 0 {
		return "none"
	}
	lower := strings.ToLower(symbol)
	parts := strings.Split(lower, ".")
	rank := func(name string) int {
		n := strings.ToLower(name)
		if n == lower {
			return 0
		}
		for _, p := range parts {
			for _, q := range strings.Split(n, ".") {
				if p != "" && p == q {
					return 1
				}
			}
		}
		for _, p := range parts {
			if p != "" && (strings.Contains(n, p) || strings.Contains(p, n)) {
				return 2
			}
		}
		return 3
	}
	sorted := append([]string(nil), names...)
	sort.SliceStable(sorted, func(i, j int) bool { return rank(sorted[i]) < rank(sorted[j]) })
	if len(sorted) <= maxListed {
		return strings.Join(sorted, ", ")
	}
	return strings.Join(sorted[:maxListed], ", ") + " and " + strconv.Itoa(len(sorted)-maxListed) + " more"
}
