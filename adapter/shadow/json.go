package shadow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Kind is the JSON type of a node.
type Kind int

// The JSON types, as the comparison names them.
const (
	KNull Kind = iota
	KBool
	KNumber
	KString
	KArray
	KObject
)

func (k Kind) String() string {
	return [...]string{"null", "bool", "number", "string", "array", "object"}[k]
}

// Node is a decoded JSON value that keeps the order of object keys, which encoding/json's maps
// lose.
type Node struct {
	Kind Kind
	Lit  string // bool, number (as written) and string values
	Keys []string
	Vals []*Node // object values (parallel to Keys) or array items
}

// Get returns the value of key in an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != KObject {
		return nil
	}

	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i]
		}
	}

	return nil
}

// Short renders the node as compact JSON, cut to max characters.
func (n *Node) Short(limit int) string {
	var b strings.Builder
	n.write(&b)
	s := b.String()
	if len(s) > limit {
		return s[:limit] + "…"
	}

	return s
}

func (n *Node) write(b *strings.Builder) {
	if n == nil {
		b.WriteString("<absent>")
		return
	}

	switch n.Kind {
	case KNull:
		b.WriteString("null")
	case KBool, KNumber:
		b.WriteString(n.Lit)
	case KString:
		q, _ := json.Marshal(n.Lit)
		b.Write(q)
	case KArray:
		b.WriteByte('[')
		for i, v := range n.Vals {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	case KObject:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			n.Vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

// Parse decodes one JSON document in order; trailing data or a syntax error is an error.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()

	n, err := decodeNode(dec)
	if err != nil {
		return nil, err
	}

	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON")
	}

	return n, nil
}

func decodeNode(dec *json.Decoder) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}

	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return decodeObject(dec)
		}
		if t == '[' {
			return decodeArray(dec)
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case nil:
		return &Node{Kind: KNull}, nil
	case bool:
		return &Node{Kind: KBool, Lit: fmt.Sprint(t)}, nil
	case json.Number:
		return &Node{Kind: KNumber, Lit: t.String()}, nil
	case string:
		return &Node{Kind: KString, Lit: t}, nil
	}

	return nil, fmt.Errorf("unexpected token %v", tok)
}

func decodeObject(dec *json.Decoder) (*Node, error) {
	n := &Node{Kind: KObject}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}

		v, err := decodeNode(dec)
		if err != nil {
			return nil, err
		}

		n.Keys = append(n.Keys, tok.(string))
		n.Vals = append(n.Vals, v)
	}

	_, err := dec.Token()

	return n, err
}

func decodeArray(dec *json.Decoder) (*Node, error) {
	n := &Node{Kind: KArray}
	for dec.More() {
		v, err := decodeNode(dec)
		if err != nil {
			return nil, err
		}
		n.Vals = append(n.Vals, v)
	}

	_, err := dec.Token()

	return n, err
}
