package main

import (
	"net/url"

	"calshim/adapter/shadow"
)

// The comparison itself (ordered JSON, differences, normalisation, the deliberate differences of
// reads) is calshim's own shadow package, which the live shadow and `calshim shadow replay` use too.
type (
	// Node is an ordered JSON value.
	Node = shadow.Node
	// Kind is the JSON type of a node.
	Kind = shadow.Kind
	// Diff is one difference between the original's answer and calshim's.
	Diff = shadow.Diff
	// Response is what a site answered.
	Response = shadow.Answer
	// Deliberate is a deliberate difference.
	Deliberate = shadow.Deliberate
	// Normalizer rewrites calshim's answer into the original's terms.
	Normalizer = shadow.Normalizer
)

// The JSON types.
const (
	KNull   = shadow.KNull
	KBool   = shadow.KBool
	KNumber = shadow.KNumber
	KString = shadow.KString
	KArray  = shadow.KArray
	KObject = shadow.KObject
)

// deliberates is the table of deliberate differences of reads.
var deliberates = shadow.Reads

// ParseJSON decodes one JSON document in order.
func ParseJSON(data []byte) (*Node, error) { return shadow.Parse(data) }

func newNormalizer(calHost, origHost, ns string) *Normalizer {
	return shadow.NewNormalizer(calHost, origHost, nsPath(ns))
}

func statusLabel(r *Response) string { return shadow.StatusLabel(r) }

func compareResponses(a, b *Response, norm *Normalizer) []Diff { return shadow.Compare(a, b, norm) }

// filterDeliberate splits diffs into the reported ones and the names of the deliberate ones.
func filterDeliberate(r *Request, diffs []Diff, table []*Deliberate) ([]Diff, []string) {
	q, _ := url.ParseQuery(r.Query)
	return shadow.Table(table).Grant(shadow.Call{Route: r.Route, Role: r.Role, Query: q}, diffs)
}
