package mapping

import "strings"

// Text is a post's string fields packed into one string with their ends: one pointer per post
// instead of fourteen. At 100,000 events the collector's mark time followed the number of pointers
// in the catalog (about 45 per post), and each mark delayed requests (issue 11). A Text is immutable.
type Text struct {
	s    string
	ends [textFields]uint32
}

// TextFields are a post's string fields unpacked: build one and Pack it to make a post's Text.
type TextFields struct {
	Type        string // post type, e.g. "tribe_events"
	Status      string // publish, future, draft, pending, private, trash
	Date        string // post_date, "Y-m-d H:i:s", site time
	DateGMT     string // post_date_gmt, "0000-00-00 00:00:00" for never-published drafts
	Modified    string
	ModifiedGMT string
	Slug        string
	Link        string // permalink
	Title       string // post_title through the_title filters (texturized), no "Protected: " prefix
	Content     string // post_content through the_content filters, "" when empty
	Excerpt     string // explicit post_excerpt through the excerpt filters, else ""
	// ExcerptText is the plain text JSON-LD describes the post with: the explicit excerpt, else the
	// first 55 words of the content (wp_trim_excerpt), without tags.
	ExcerptText string
	Password    string // post_password; "" when unprotected or hidden from the catalog credential
	// Search is the lowercased plain text an event search looks in (SearchText), set by Derive.
	Search string
}

// The fields' order in a Text, which is TextFields' order.
const (
	fieldType = iota
	fieldStatus
	fieldDate
	fieldDateGMT
	fieldModified
	fieldModifiedGMT
	fieldSlug
	fieldLink
	fieldTitle
	fieldContent
	fieldExcerpt
	fieldExcerptText
	fieldPassword
	fieldSearch
	textFields
)

func (f *TextFields) list() [textFields]*string {
	return [textFields]*string{&f.Type, &f.Status, &f.Date, &f.DateGMT, &f.Modified, &f.ModifiedGMT,
		&f.Slug, &f.Link, &f.Title, &f.Content, &f.Excerpt, &f.ExcerptText, &f.Password, &f.Search}
}

// Pack returns the fields as a Text.
func (f TextFields) Pack() Text {
	fields := f.list()
	n := 0
	for _, v := range fields {
		n += len(*v)
	}

	var b strings.Builder
	b.Grow(n)
	var t Text
	for i, v := range fields {
		b.WriteString(*v)
		t.ends[i] = uint32(b.Len())
	}

	t.s = b.String()
	return t
}

// Fields returns the fields unpacked (sharing t's bytes).
func (t Text) Fields() TextFields {
	var f TextFields
	for i, v := range f.list() {
		*v = t.field(i)
	}
	return f
}

func (t *Text) field(i int) string {
	from := uint32(0)
	if i > 0 {
		from = t.ends[i-1]
	}
	return t.s[from:t.ends[i]]
}

// GobEncode writes the fields as length-prefixed strings (the snapshot file keeps posts through gob).
func (t Text) GobEncode() ([]byte, error) {
	b := make([]byte, 0, len(t.s)+2*textFields)
	for i := range textFields {
		b = appendMetaString(b, t.field(i))
	}
	return b, nil
}

// GobDecode reads what GobEncode wrote, packing the fields as they come (a restart decodes the text
// of every post).
func (t *Text) GobDecode(b []byte) error {
	r := metaReader{b: b}
	buf := make([]byte, 0, len(b))
	var ends [textFields]uint32
	for i := range textFields {
		buf = append(buf, r.bytes()...)
		ends[i] = uint32(len(buf))
	}

	if r.err != nil {
		return r.err
	}

	*t = Text{s: string(buf), ends: ends}
	return nil
}

// Type is the post type, e.g. "tribe_events".
func (p *Post) Type() string { return p.Text.field(fieldType) }

// Status is the post status: publish, future, draft, pending, private or trash.
func (p *Post) Status() string { return p.Text.field(fieldStatus) }

// Date is post_date, "Y-m-d H:i:s" in site time.
func (p *Post) Date() string { return p.Text.field(fieldDate) }

// DateGMT is post_date_gmt ("0000-00-00 00:00:00" for never-published drafts).
func (p *Post) DateGMT() string { return p.Text.field(fieldDateGMT) }

// Modified is post_modified, site time.
func (p *Post) Modified() string { return p.Text.field(fieldModified) }

// ModifiedGMT is post_modified_gmt.
func (p *Post) ModifiedGMT() string { return p.Text.field(fieldModifiedGMT) }

// Slug is the post name.
func (p *Post) Slug() string { return p.Text.field(fieldSlug) }

// Link is the permalink.
func (p *Post) Link() string { return p.Text.field(fieldLink) }

// Title is post_title through the_title filters.
func (p *Post) Title() string { return p.Text.field(fieldTitle) }

// Content is post_content through the_content filters.
func (p *Post) Content() string { return p.Text.field(fieldContent) }

// Excerpt is the explicit excerpt through the excerpt filters, else "".
func (p *Post) Excerpt() string { return p.Text.field(fieldExcerpt) }

// ExcerptText is the plain text JSON-LD describes the post with.
func (p *Post) ExcerptText() string { return p.Text.field(fieldExcerptText) }

// Password is post_password ("" when unprotected or hidden from the catalog credential).
func (p *Post) Password() string { return p.Text.field(fieldPassword) }

// Search is the text an event search looks in ("" before Derive).
func (p *Post) Search() string { return p.Text.field(fieldSearch) }

// EditText changes p's string fields through edit: only for a post not yet shared with readers.
func (p *Post) EditText(edit func(f *TextFields)) {
	f := p.Text.Fields()
	edit(&f)
	p.Text = f.Pack()
}
