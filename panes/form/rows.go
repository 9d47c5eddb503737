package form

import (
	"strconv"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// rowKind is what a line of the form is.
type rowKind int

const (
	rowField  rowKind = iota // a node: a value, or the header of a group
	rowOption                // one choice of a multi-select
	rowAdd                   // "+ add item" at the end of an array or map
	rowKey                   // the key of a key/value row
)

// row is one focusable line. Rows are rebuilt only when the structure
// changes; typing into a field changes the node, not the rows.
type row struct {
	kind  rowKind
	n     *node
	opt   int // rowOption: which option
	depth int
	label string
	ptr   string
}

// flatten appends n's rows. label is what the row calls the node; the
// root object contributes no header of its own.
func (f *Form) flatten(n *node, ptr string, depth int, label string) {
	n.ptr = ptr
	// The row that shows a value claims its pointer, so issues about the
	// value land beside it. A key row and a choice's selector share the
	// pointer with the value under them and claim it only when nothing
	// under them did (an omitted or collapsed choice).
	register := func(i int) {
		if _, seen := f.rowByPtr[ptr]; !seen {
			f.rowByPtr[ptr] = i
		}
	}
	add := func(r row) int {
		r.ptr = ptr
		f.rows = append(f.rows, r)
		i := len(f.rows) - 1
		if r.kind == rowField && n.kind != kindChoice {
			register(i)
		}
		return i
	}
	isRoot := n.parent == nil
	if n.isEntry {
		// The key row comes first; the value is drawn under it.
		k := add(row{kind: rowKey, n: n, depth: depth, label: "key"})
		defer register(k)
		depth++
		label = "value"
	}
	switch n.kind {
	case kindObject:
		if !isRoot {
			add(row{kind: rowField, n: n, depth: depth, label: label})
			depth++
		}
		if n.state != present || (n.collapsed && !isRoot) {
			return
		}
		f.flattenMembers(n, ptr, depth)
	case kindArray:
		add(row{kind: rowField, n: n, depth: depth, label: label})
		if n.state != present || n.collapsed {
			return
		}
		for i, it := range n.items {
			f.flatten(it, ptr+"/"+strconv.Itoa(i), depth+1, "["+strconv.Itoa(i)+"]")
		}
		f.rows = append(f.rows, row{kind: rowAdd, n: n, depth: depth + 1, label: "", ptr: ptr})
	case kindMulti:
		add(row{kind: rowField, n: n, depth: depth, label: label})
		if n.state != present || n.collapsed {
			return
		}
		for i := range n.options {
			f.rows = append(f.rows, row{kind: rowOption, n: n, opt: i, depth: depth + 1, ptr: ptr})
		}
	case kindChoice:
		defer register(add(row{kind: rowField, n: n, depth: depth, label: label}))
		if n.state != present || n.collapsed {
			return
		}
		c := n.activeNode(f.b)
		if c == nil {
			return
		}
		c.ptr = ptr
		if c.kind == kindObject && c.state == present {
			// The branch's fields sit right under the selector: the
			// branch is the object, it needs no header of its own.
			f.flattenMembers(c, ptr, depth+1)
			return
		}
		f.flatten(c, ptr, depth+1, "value")
	default:
		add(row{kind: rowField, n: n, depth: depth, label: label})
	}
}

func (f *Form) flattenMembers(n *node, ptr string, depth int) {
	for _, p := range n.props {
		f.flatten(p, ptr+"/"+schema.EscapeToken(p.name), depth, p.name)
	}
	for _, e := range n.entries {
		f.flatten(e, ptr+"/"+schema.EscapeToken(e.name), depth, e.name)
	}
	if n.offersKeys {
		f.rows = append(f.rows, row{kind: rowAdd, n: n, depth: depth, ptr: ptr})
	}
}

// focusedNode is the node under the cursor.
func (f *Form) focusedNode() *node {
	if f.cur < 0 || f.cur >= len(f.rows) {
		return nil
	}
	return f.rows[f.cur].n
}

// enclosingArray finds the array the focused row belongs to, and the item
// index (-1 on the array's own header or add row).
func (f *Form) enclosingArray() (*node, int) {
	if f.cur < 0 || f.cur >= len(f.rows) {
		return nil, -1
	}
	r := f.rows[f.cur]
	if r.n.kind == kindArray && (r.kind == rowAdd || r.kind == rowField) {
		return r.n, -1
	}
	child := r.n
	for p := r.n.parent; p != nil; child, p = p, p.parent {
		if p.kind == kindArray {
			for i, it := range p.items {
				if it == child {
					return p, i
				}
			}
		}
	}
	return nil, -1
}

// enclosingEntry finds the key/value row the cursor is in.
func (f *Form) enclosingEntry() *node {
	if f.cur < 0 || f.cur >= len(f.rows) {
		return nil
	}
	for n := f.rows[f.cur].n; n != nil; n = n.parent {
		if n.isEntry {
			return n
		}
		if n.kind == kindArray {
			return nil // deleting inside an array item means the item
		}
	}
	return nil
}

// enclosingMap is the nearest object with key/value rows at or above the
// focused row (where the add key adds a row), or nil.
func (f *Form) enclosingMap() *node {
	for n := f.focusedNode(); n != nil; n = n.parent {
		if n.kind == kindObject && n.offersKeys {
			return n
		}
	}
	return nil
}

// enclosingChoice is the choice the node is, or is inside of.
func (f *Form) enclosingChoice(n *node) *node {
	for ; n != nil; n = n.parent {
		if n.kind == kindChoice {
			return n
		}
	}
	return nil
}

// enclosingGroup is the nearest collapsible node at or above n.
func enclosingGroup(n *node) *node {
	for ; n != nil && n.parent != nil; n = n.parent {
		switch n.kind {
		case kindObject, kindArray, kindChoice, kindMulti:
			return n
		}
	}
	return nil
}

// focusRowOf moves the cursor to n's first row, if it has one.
func (f *Form) focusRowOf(n *node) {
	for i, r := range f.rows {
		if r.n == n && r.kind != rowAdd {
			f.cur = i
			f.scrollToCursor()
			return
		}
	}
}
