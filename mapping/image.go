package mapping

import (
	"path"
	"strings"

	"calshim/mapping/php"
)

// featuredMedia returns the featured image of p, if it has one the catalog knows.
func (c *Context) featuredMedia(p *Post) (*Media, bool) {
	if p.FeaturedMedia <= 0 || c.Lookup == nil {
		return nil, false
	}
	return c.Lookup.Media(p.FeaturedMedia)
}

// image is the "image" member of events, venues and organizers
// (Post_Repository::get_featured_image): false without a featured image, else url, id, extension
// and — for an image with metadata — width, height, filesize and sizes, with empty values removed.
// A featured image ID that is no attachment (a deleted one, another post) still counts as a
// thumbnail there: its url is false and it has no extension.
func (c *Context) image(p *Post) any {
	m, ok := c.featuredMedia(p)
	if !ok && p.FeaturedMedia > 0 {
		return Object{{"url", false}, {"id", p.FeaturedMedia}, {"extension", ""}}
	}

	if !ok {
		return false
	}

	file := m.File
	if file == "" {
		file = m.URL
		if i := strings.IndexAny(file, "?#"); i >= 0 {
			file = file[:i]
		}
	}

	o := Object{{"url", m.URL}, {"id", m.ID}, {"extension", strings.TrimPrefix(path.Ext(file), ".")}}
	if m.Width == 0 && m.Height == 0 && len(m.Sizes) == 0 {
		return o // no image metadata: nothing merged, nothing filtered
	}

	o = append(o, KV{"width", m.Width}, KV{"height", m.Height}, KV{"filesize", m.Filesize},
		KV{"sizes", imageSizes(m.Sizes)})
	return filterEmpty(o)
}

// imageSizes is the attachment metadata "sizes" keyed by size name, "file" replaced by "url".
func imageSizes(sizes []MediaSize) Object {
	o := make(Object, 0, len(sizes))
	for _, s := range sizes {
		size := Object{{"width", s.Width}, {"height", s.Height}, {"mime-type", s.MimeType}}
		if s.Filesize != 0 {
			size = append(size, KV{"filesize", s.Filesize})
		}
		o = append(o, KV{s.Name, append(size, KV{"url", s.URL})})
	}

	return o
}

// filterEmpty is PHP's array_filter without a callback: members whose value is empty in PHP terms
// ("", "0", 0, false, nil, empty list or object) are removed.
func filterEmpty(o Object) Object {
	out := o[:0:0]
	for _, kv := range o {
		if !php.Empty(kv.Value) {
			out = append(out, kv)
		}
	}
	return out
}
