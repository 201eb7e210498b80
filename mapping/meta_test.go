package mapping

import (
	"reflect"
	"testing"
)

func TestMetaRows(t *testing.T) {
	rows := map[string][]string{"_EventCost": {"0", "20"}, "_EventURL": {"https://x.example"},
		"_EventShowMap": {""}}
	m := NewMeta(rows)
	if got := m.Get("_EventCost"); !reflect.DeepEqual(got, []string{"0", "20"}) {
		t.Errorf("Get(_EventCost) = %q", got)
	}

	if m.Get("_none") != nil || m.Has("_none") || !m.Has("_EventShowMap") || m.Len() != 3 {
		t.Errorf("absent/present keys wrong: %v", m.Map())
	}

	if !reflect.DeepEqual(m.Map(), rows) {
		t.Errorf("Map() = %v", m.Map())
	}

	if other := NewMeta(map[string][]string{"_EventCost": {"1", "2"}, "_EventURL": {"u"},
		"_EventShowMap": {"1"}}); other.shape != m.shape {
		t.Error("posts of the same keys and row counts do not share their shape")
	}

	if w := m.With("_EventCost").Added("_EventURL", "b"); w.Has("_EventCost") ||
		!reflect.DeepEqual(w.Get("_EventURL"), []string{"https://x.example", "b"}) {
		t.Errorf("With/Added = %v", w.Map())
	}

	if (Meta{}).Get("x") != nil || (Meta{}).Len() != 0 {
		t.Error("the zero Meta has rows")
	}
}

func TestMetaGobRoundTrip(t *testing.T) {
	m := NewMeta(map[string][]string{"a": {"1", ""}, "b": {"x"}})
	b, err := m.GobEncode()
	if err != nil {
		t.Fatal(err)
	}

	var back Meta
	if err := back.GobDecode(b); err != nil || !reflect.DeepEqual(back.Map(), m.Map()) {
		t.Fatalf("round trip = %v, %v", back.Map(), err)
	}

	if err := back.GobDecode(b[:len(b)-2]); err == nil {
		t.Error("a truncated encoding decodes")
	}
}
