package cmsclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"calshim/mapping"
)

// Site is what calshim needs from the REST index (GET /): the home URL, the time zone and the settings
// the calshim plugin publishes under the "calshim" key.
type Site struct {
	mapping.Site
	PluginVersion  string // "" when the calshim plugin is not installed
	PostsPerPage   int
	MultiDayCutoff string // TEC option, "HH:MM"
}

// RESTIndex answers the REST index as WordPress gives it (counted under "other", as before it had a
// method of its own).
func (c *Client) RESTIndex(ctx context.Context) (json.RawMessage, error) {
	res, err := c.Get(ctx, "/", nil)
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// Site reads the REST index.
func (c *Client) Site(ctx context.Context) (*Site, error) {
	res, err := c.Get(withOp(ctx, opIndex), "/", nil)
	if err != nil {
		return nil, err
	}
	var idx struct {
		Name           string    `json:"name"`
		Home           string    `json:"home"`
		TimezoneString string    `json:"timezone_string"`
		GMTOffset      gmtOffset `json:"gmt_offset"`
		Calshim        *struct {
			Version      string `json:"version"`
			PostsPerPage int    `json:"posts_per_page"`
			WriteKeys    int    `json:"write_keys"`
			TEC          struct {
				MultiDayCutoff        string `json:"multiDayCutoff"`
				DefaultCurrencySymbol string `json:"defaultCurrencySymbol"`
				DefaultCurrencyCode   string `json:"defaultCurrencyCode"`
			} `json:"tec"`
		} `json:"calshim"`
	}
	if err := json.Unmarshal(res.Body, &idx); err != nil {
		return nil, fmt.Errorf("cmsclient: REST index: %w", err)
	}
	s := &Site{Site: mapping.Site{Name: idx.Name, Home: idx.Home, Timezone: idx.TimezoneString,
		DefaultCurrencySymbol: "$", DefaultCurrencyCode: "USD"}, MultiDayCutoff: "00:00"}
	if s.Timezone == "" {
		s.Timezone = utcOffsetZone(float64(idx.GMTOffset))
	}
	c.writeKeys.Store(idx.Calshim != nil && idx.Calshim.WriteKeys > 0)
	if p := idx.Calshim; p != nil {
		s.PluginVersion, s.PostsPerPage = p.Version, p.PostsPerPage
		s.MultiDayCutoff = firstNonEmpty(p.TEC.MultiDayCutoff, s.MultiDayCutoff)
		s.DefaultCurrencySymbol = firstNonEmpty(p.TEC.DefaultCurrencySymbol, s.DefaultCurrencySymbol)
		s.DefaultCurrencyCode = firstNonEmpty(p.TEC.DefaultCurrencyCode, s.DefaultCurrencyCode)
	}
	return s, nil
}

// gmtOffset is the REST index's gmt_offset: a number when WordPress computes it from timezone_string, but
// the stored option as is — a string such as "5.5", or "" when never set — when there is no
// timezone_string, which is exactly when calshim needs it.
type gmtOffset float64

func (g *gmtOffset) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		*g = gmtOffset(v)
	case string:
		if strings.TrimSpace(v) == "" {
			*g = 0
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return fmt.Errorf("gmt_offset %q: %w", v, err)
		}
		*g = gmtOffset(f)
	case nil, bool: // false: get_option() found nothing
		*g = 0
	default:
		return fmt.Errorf("gmt_offset: unexpected %s", b)
	}
	return nil
}

// utcOffsetZone builds WordPress' "UTC+5.5" pseudo zone from gmt_offset, as TEC does when no
// timezone_string is set.
func utcOffsetZone(off float64) string {
	if off == 0 {
		return "UTC"
	}
	return fmt.Sprintf("UTC%+g", off)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// wpDate turns wp/v2's "2026-11-22T13:54:24" into the original's "2026-11-22 13:54:24"; null (never
// published drafts' date_gmt) becomes "0000-00-00 00:00:00" as WordPress stores it.
func wpDate(s *string) string {
	if s == nil || *s == "" {
		return "0000-00-00 00:00:00"
	}
	return strings.Replace(*s, "T", " ", 1)
}

// ErrWithheld is DecodePost's answer for a password-protected post whose calshim field the plugin
// withholds from this credential (the plugin shows its meta only to the service role and editors, so
// that wp/v2 shows no more than v1): a catalog loaded without the service credential leaves it out.
var ErrWithheld = errors.New("the calshim field is withheld from this credential (password-protected post)")

// postWire is what DecodePost reads of a wp/v2 post.
type postWire struct {
	ID            int     `json:"id"`
	Type          string  `json:"type"`
	Author        int     `json:"author"`
	Status        string  `json:"status"`
	Date          *string `json:"date"`
	DateGMT       *string `json:"date_gmt"`
	Modified      *string `json:"modified"`
	ModifiedGMT   *string `json:"modified_gmt"`
	Slug          string  `json:"slug"`
	Link          string  `json:"link"`
	FeaturedMedia int     `json:"featured_media"`
	Content       struct {
		Protected bool `json:"protected"`
	} `json:"content"`
	Calshim *struct {
		Title       string              `json:"title"`
		Content     string              `json:"content"`
		Excerpt     string              `json:"excerpt"`
		ExcerptText string              `json:"excerpt_text"`
		Password    string              `json:"password"`
		Protected   bool                `json:"protected"`
		MenuOrder   int                 `json:"menu_order"`
		Parent      int                 `json:"parent"`
		PostDateGMT *string             `json:"post_date_gmt"`
		ModifiedGMT *string             `json:"post_modified_gmt"`
		Meta        map[string][]string `json:"meta"`
		Version     string              `json:"version"`
	} `json:"calshim"`
}

// termList is a post's term IDs under one taxonomy's key, read in the post's own decoding pass: Set
// when the key is there and holds a list of IDs (or null); anything else leaves it unset, as if absent.
type termList struct {
	IDs []int
	Set bool
}

func (l *termList) UnmarshalJSON(b []byte) error {
	var ids []int
	if json.Unmarshal(b, &ids) == nil {
		l.IDs, l.Set = ids, true
	}
	return nil
}

// postDecoders holds, per list of taxonomy keys, a struct type made at run time: postWire embedded and one
// termList field per key, so that a post and its term lists are decoded in one pass over its JSON (a
// second pass into a map of every key cost half of a bulk page's decoding).
var postDecoders sync.Map // strings.Join(taxonomies, "\x00") -> reflect.Type, or nil: decode in two passes

var wireKeys = func() []string {
	var keys []string
	for f := range reflect.TypeFor[postWire]().Fields() {
		keys = append(keys, f.Tag.Get("json"))
	}
	return keys
}()

// postDecoder is the struct type for taxonomies, or nil when one pass would not read what two do: a key
// that encoding/json would match with one of postWire's (it folds case) or with another of the list.
func postDecoder(taxonomies []string) reflect.Type {
	key := strings.Join(taxonomies, "\x00")
	if t, ok := postDecoders.Load(key); ok {
		t, _ := t.(reflect.Type)
		return t
	}
	fields := []reflect.StructField{{Name: "Wire", Type: reflect.TypeFor[postWire](), Anonymous: true}}
	seen := wireKeys
	for i, tax := range taxonomies {
		for _, k := range seen {
			if strings.EqualFold(k, tax) {
				postDecoders.Store(key, nil)
				return nil
			}
		}
		seen = append(seen[:len(seen):len(seen)], tax)
		fields = append(fields, reflect.StructField{Name: "T" + strconv.Itoa(i), Type: reflect.TypeFor[termList](),
			Tag: reflect.StructTag(`json:"` + tax + `"`)})
	}
	for _, tax := range taxonomies {
		// A key encoding/json cannot name a field with (quotes, backslashes, commas) is read in two passes.
		if strings.ContainsAny(tax, "\"\\,") {
			postDecoders.Store(key, nil)
			return nil
		}
	}
	t := reflect.StructOf(fields)
	postDecoders.Store(key, t)
	return t
}

// DecodePost decodes one wp/v2 post carrying the calshim plugin field. taxonomies are the REST bases
// of the taxonomies to read term IDs from (e.g. "tribe_events_cat", "tags"); terms are stored under
// the base name.
func DecodePost(raw json.RawMessage, taxonomies ...string) (*mapping.Post, error) {
	return decodePost(raw, postDecoder(taxonomies), taxonomies)
}

// decodePost is DecodePost in one pass with t (postDecoder's), in two without.
func decodePost(raw json.RawMessage, t reflect.Type, taxonomies []string) (*mapping.Post, error) {
	w, lists, err := readPost(raw, t, taxonomies)
	if err != nil {
		return nil, err
	}
	if w.Calshim == nil {
		if w.Content.Protected {
			return nil, fmt.Errorf("cmsclient: post %d: %w", w.ID, ErrWithheld)
		}
		return nil, fmt.Errorf("cmsclient: post %d has no calshim field: is the calshim WordPress plugin installed?", w.ID)
	}
	// wp/v2 invents a date_gmt and a modified_gmt for never-published drafts; the original shows the
	// stored zero dates.
	if w.Calshim.PostDateGMT != nil {
		w.DateGMT = w.Calshim.PostDateGMT
	}
	if w.Calshim.ModifiedGMT != nil {
		w.ModifiedGMT = w.Calshim.ModifiedGMT
	}
	text := mapping.TextFields{Type: w.Type, Status: w.Status, Date: wpDate(w.Date), DateGMT: wpDate(w.DateGMT),
		Modified: wpDate(w.Modified), ModifiedGMT: wpDate(w.ModifiedGMT), Slug: w.Slug, Link: w.Link,
		Title: w.Calshim.Title, Content: w.Calshim.Content, Excerpt: w.Calshim.Excerpt,
		ExcerptText: w.Calshim.ExcerptText, Password: w.Calshim.Password}
	p := &mapping.Post{ID: w.ID, Author: w.Author, Text: text.Pack(), FeaturedMedia: w.FeaturedMedia,
		Protected: w.Calshim.Protected, MenuOrder: w.Calshim.MenuOrder, Parent: w.Calshim.Parent,
		Meta: mapping.NewMeta(w.Calshim.Meta), Terms: map[string][]int{}, Version: w.Calshim.Version}
	for i, l := range lists {
		if l.Set {
			p.Terms[taxonomies[i]] = l.IDs
		}
	}
	return p, nil
}

// readPost reads a post's wire fields and its term lists, one per taxonomy, in one pass with t or in two.
func readPost(raw json.RawMessage, t reflect.Type, taxonomies []string) (*postWire, []termList, error) {
	lists := make([]termList, len(taxonomies))
	if t != nil {
		v := reflect.New(t)
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return nil, nil, fmt.Errorf("cmsclient: decode post: %w", err)
		}
		for i := range lists {
			lists[i] = v.Elem().Field(1 + i).Interface().(termList)
		}
		return v.Elem().Field(0).Addr().Interface().(*postWire), lists, nil
	}
	w := new(postWire)
	if err := json.Unmarshal(raw, w); err != nil {
		return nil, nil, fmt.Errorf("cmsclient: decode post: %w", err)
	}
	if len(taxonomies) == 0 {
		return w, lists, nil
	}
	var tax map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tax); err != nil {
		return nil, nil, fmt.Errorf("cmsclient: decode post %d: %w", w.ID, err)
	}
	for i, name := range taxonomies {
		if r, ok := tax[name]; ok {
			_ = lists[i].UnmarshalJSON(r)
		}
	}
	return w, lists, nil
}

// DecodeTerm decodes one wp/v2 term carrying the calshim plugin field.
func DecodeTerm(raw json.RawMessage) (*mapping.Term, error) {
	var w struct {
		ID          int    `json:"id"`
		Count       int    `json:"count"`
		Description string `json:"description"`
		Link        string `json:"link"`
		Name        string `json:"name"`
		Slug        string `json:"slug"`
		Taxonomy    string `json:"taxonomy"`
		Parent      int    `json:"parent"`
		Calshim     struct {
			TermGroup      int    `json:"term_group"`
			TermTaxonomyID int    `json:"term_taxonomy_id"`
			Version        string `json:"version"`
		} `json:"calshim"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("cmsclient: decode term: %w", err)
	}
	return &mapping.Term{ID: w.ID, Name: w.Name, Slug: w.Slug, Taxonomy: w.Taxonomy, Description: w.Description,
		Parent: w.Parent, Count: w.Count, TermGroup: w.Calshim.TermGroup, TermTaxonomyID: w.Calshim.TermTaxonomyID,
		Link: w.Link, Version: w.Calshim.Version}, nil
}

// DecodeMedia decodes one wp/v2 attachment. The sizes keep the order of the attachment metadata
// (wp/v2 sends them as an object; the original lists them in that order), without core's extra "full".
func DecodeMedia(raw json.RawMessage) (*mapping.Media, error) {
	var w struct {
		ID           int    `json:"id"`
		SourceURL    string `json:"source_url"`
		MediaDetails struct {
			Width    int             `json:"width"`
			Height   int             `json:"height"`
			Filesize int             `json:"filesize"`
			File     string          `json:"file"`
			Sizes    json.RawMessage `json:"sizes"`
		} `json:"media_details"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("cmsclient: decode media: %w", err)
	}
	m := &mapping.Media{ID: w.ID, URL: w.SourceURL, File: w.MediaDetails.File, Width: w.MediaDetails.Width,
		Height: w.MediaDetails.Height, Filesize: w.MediaDetails.Filesize}
	sizes, err := orderedSizes(w.MediaDetails.Sizes)
	if err != nil {
		return nil, fmt.Errorf("cmsclient: decode media %d: %w", w.ID, err)
	}
	m.Sizes = sizes
	return m, nil
}

func orderedSizes(raw json.RawMessage) ([]mapping.MediaSize, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil // absent, or [] for non-images
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []mapping.MediaSize
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var s struct {
			Width     int    `json:"width"`
			Height    int    `json:"height"`
			Filesize  int    `json:"filesize"`
			MimeType  string `json:"mime_type"`
			SourceURL string `json:"source_url"`
		}
		if err := dec.Decode(&s); err != nil {
			return nil, err
		}
		if name, _ := tok.(string); name != "full" {
			out = append(out, mapping.MediaSize{Name: name, Width: s.Width, Height: s.Height, MimeType: s.MimeType,
				Filesize: s.Filesize, URL: s.SourceURL})
		}
	}
	return out, nil
}
