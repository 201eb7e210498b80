package wpfake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Dir returns the directory of the recorded fixtures, cmsclient/testdata/wp (see
// cmsclient/testdata/record.sh), wherever the test runs from.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("cmsclient", "testdata", "wp")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "cmsclient", "testdata", "wp")
}

// Recording is one answer recorded from the real WordPress, as listed in manifest.tsv.
type Recording struct {
	File       string // body file name, e.g. "tribe_events.json"
	Status     int
	Total      int    // X-WP-Total, -1 when absent
	TotalPages int    // X-WP-TotalPages, -1 when absent
	Request    string // who asked and what, e.g. "reader /wp/v2/tribe_events?status=…"
	Body       []byte
}

// ReadRecordings reads manifest.tsv of dir and every body it lists, keyed by file name.
func ReadRecordings(dir string) (map[string]Recording, error) {
	f, err := os.ReadFile(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, fmt.Errorf("wpfake: %w", err)
	}
	out := map[string]Recording{}
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("wpfake: manifest.tsv: want 5 columns: %q", line)
		}
		rec := Recording{File: cols[0], Total: headerNumber(cols[2]), TotalPages: headerNumber(cols[3]), Request: cols[4]}
		if rec.Status, err = strconv.Atoi(cols[1]); err != nil {
			return nil, fmt.Errorf("wpfake: manifest.tsv: status of %s: %w", cols[0], err)
		}
		if rec.Body, err = os.ReadFile(filepath.Join(dir, rec.File)); err != nil {
			return nil, fmt.Errorf("wpfake: %w", err)
		}
		out[rec.File] = rec
	}
	return out, sc.Err()
}

func headerNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// collectionFiles maps the wp/v2 REST bases the fake serves to their recorded list.
var collectionFiles = map[string]string{
	"tribe_events":     "tribe_events.json",
	"tribe_venue":      "tribe_venue.json",
	"tribe_organizer":  "tribe_organizer.json",
	"tribe_events_cat": "tribe_events_cat.json",
	"tags":             "tags.json",
	"media":            "media.json",
}

// item is one object of a collection, with the fields the fake filters on.
type item struct {
	id       int
	status   string // "" for terms
	modified string // modified_gmt as sent, "" for terms
	count    int    // terms: published objects
	raw      json.RawMessage
}

func newItem(raw json.RawMessage) (item, error) {
	var f struct {
		ID          int    `json:"id"`
		Status      string `json:"status"`
		ModifiedGMT string `json:"modified_gmt"`
		Count       int    `json:"count"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return item{}, fmt.Errorf("wpfake: item: %w", err)
	}
	if f.ID == 0 {
		return item{}, fmt.Errorf("wpfake: item without id: %.80s", raw)
	}
	return item{id: f.ID, status: f.Status, modified: f.ModifiedGMT, count: f.Count, raw: raw}, nil
}

func loadCollections(recs map[string]Recording) (map[string][]item, error) {
	out := map[string][]item{}
	for base, file := range collectionFiles {
		rec, ok := recs[file]
		if !ok {
			return nil, fmt.Errorf("wpfake: %s not recorded", file)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(rec.Body, &raws); err != nil {
			return nil, fmt.Errorf("wpfake: %s: %w", file, err)
		}
		for _, raw := range raws {
			it, err := newItem(raw)
			if err != nil {
				return nil, fmt.Errorf("wpfake: %s: %w", file, err)
			}
			out[base] = append(out[base], it)
		}
	}
	return out, nil
}
