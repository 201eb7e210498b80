package mapping

import (
	"encoding/binary"
	"reflect"
	"testing"
	"unsafe"
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

// Colocate puts the posts' text and meta end to end in one string, and points the start and end
// at the meta.
func TestColocate(t *testing.T) {
	post := func(title, start string) Post {
		return Post{Text: TextFields{Title: title}.Pack(),
			Meta:    NewMeta(map[string][]string{"_EventStartDate": {start}, "_EventEndDate": {start}}),
			Derived: Derived{Start: string([]byte(start)), End: "other"}}
	}

	posts := []Post{post("a", "2026-01-01 10:00:00"), post("bb", "2026-02-01 10:00:00")}
	Colocate(posts)
	at := func(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
	a, b := &posts[0], &posts[1]
	if at(a.Meta.buf) != at(a.Text.s)+uintptr(len(a.Text.s)) || at(b.Text.s) != at(a.Meta.buf)+uintptr(len(a.Meta.buf)) {
		t.Error("text and meta are not end to end")
	}

	if start, _ := b.MetaFirst("_EventStartDate"); at(b.Derived.Start) != at(start) || b.Title() != "bb" {
		t.Errorf("start %q not in the meta", b.Derived.Start)
	}

	if b.Derived.End != "other" {
		t.Errorf("an end unlike the meta's became %q", b.Derived.End)
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

// Packing keeps every row of every key, in order, whatever the values (empty, repeated, long,
// binary), and the snapshot encodings of Meta and Text decode to what was packed.
func FuzzPacking(f *testing.F) {
	f.Add("_EventCost", "0", "20", "", "https://x.example")
	f.Add("", "", "", "", "")
	f.Add("k", "\x00\xff", "é", "a,b", string(make([]byte, 300)))
	f.Fuzz(func(t *testing.T, key, a, b, c, d string) {
		rows := map[string][]string{key: {a, b}, key + "2": {c}, "z" + key: {}, "_x": {d, a, d}}
		m := NewMeta(rows)
		for k, want := range rows {
			if got := m.Get(k); len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Errorf("Get(%q) = %q, want %q", k, got, want)
			}

			if first, ok := m.First(k); ok != (len(want) > 0) || ok && first != want[0] {
				t.Errorf("First(%q) = %q, %v", k, first, ok)
			}
		}

		enc, _ := m.GobEncode()
		var back Meta
		if err := back.GobDecode(enc); err != nil || !reflect.DeepEqual(back.Map(), m.Map()) {
			t.Errorf("meta round trip = %v, %v", back.Map(), err)
		}

		text := TextFields{Type: key, Title: a, Content: b, Slug: c, Password: d, Search: a + d}
		p := &Post{Text: text.Pack()}
		if p.Type() != key || p.Title() != a || p.Content() != b || p.Slug() != c || p.Password() != d ||
			p.Search() != a+d || p.Excerpt() != "" || p.Text.Fields() != text {
			t.Errorf("Text round trip = %+v, want %+v", p.Text.Fields(), text)
		}

		enc, _ = p.Text.GobEncode()
		var tb Text
		if err := tb.GobDecode(enc); err != nil || tb != p.Text {
			t.Errorf("text gob round trip = %+v, %v", tb.Fields(), err)
		}

		block := []Post{{Text: p.Text, Meta: m}, {}, {Text: p.Text}}
		Colocate(block)
		if block[0].Text.Fields() != text || !reflect.DeepEqual(block[0].Meta.Map(), m.Map()) ||
			block[1].Text.Fields() != (TextFields{}) || block[1].Meta.Len() != 0 || block[2].Title() != a {
			t.Errorf("Colocate changed the posts: %+v %v", block[0].Text.Fields(), block[0].Meta.Map())
		}

		_ = back.GobDecode([]byte(a)) // arbitrary bytes: an error or rows, never a panic
		_ = tb.GobDecode([]byte(b))
	})
}

// Rows encoded with their keys out of order, or a key twice, decode as a map of them would (a
// later key replaces an equal one); in order, as packed.
func TestMetaGobDecodeKeyOrder(t *testing.T) {
	encode := func(rows ...[]string) []byte { // each: a key, then its rows
		b := binary.AppendUvarint(nil, uint64(len(rows)))
		for _, r := range rows {
			b = appendMetaString(b, r[0])
			b = binary.AppendUvarint(b, uint64(len(r)-1))
			for _, v := range r[1:] {
				b = appendMetaString(b, v)
			}
		}
		return b
	}
	for _, c := range []struct {
		enc  []byte
		want map[string][]string
	}{
		{encode([]string{"a", "1", "2"}, []string{"b"}, []string{"c", "3"}),
			map[string][]string{"a": {"1", "2"}, "b": {}, "c": {"3"}}},
		{encode([]string{"c", "3"}, []string{"a", "1", "2"}),
			map[string][]string{"a": {"1", "2"}, "c": {"3"}}},
		{encode([]string{"a", "1"}, []string{"a", "2", "4"}), map[string][]string{"a": {"2", "4"}}},
	} {
		var m Meta
		if err := m.GobDecode(c.enc); err != nil {
			t.Fatal(err)
		}
		if want := NewMeta(c.want); !reflect.DeepEqual(m.Map(), want.Map()) || m.shape != want.shape {
			t.Errorf("decoded %v, want %v", m.Map(), want.Map())
		}
	}
}
