package catalog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"calshim/cmsclient"
	"calshim/mapping"
)

// This file keeps the local snapshot: the catalog written to a file (Options.SnapshotPath) with the
// change log position it reflects, so that a restart reads the file, catches up through the feed and
// serves at once instead of loading everything again. Only a catalog that syncs through the feed is
// saved: its sequence is what makes a saved state checkable.

// diskFormat changes whenever the file's layout or the meaning of a catalog field changes: older
// files are discarded.
// 7: digests (verify), object versions (If-Match) and images of any status together; 8: the site's name;
// 9: the sync journal.
const diskFormat = 9

// framePosts is how many posts one frame of the file holds: a restart reads the file a frame at a
// time and decodes as many frames at once as there are CPUs, so that what it holds besides the
// catalog is a few frames (a few MB), not the file. A file of an earlier version, written in 8
// frames whatever its size, reads the same way, a frame (an eighth of the file) at a time.
var framePosts = 4096 // a variable for the tests

// saveEvery bounds how often a changing catalog is written (it is also written when calshim stops).
// Writing 100,000 events costs about a CPU second; an older file only means a longer catch-up through
// the feed at the next start.
const saveEvery = time.Minute

// tempPattern names a save's temporary file, in the snapshot file's directory.
const tempPattern = ".calshim-snapshot-*"

// staleTemp is how long a temporary file must have gone unwritten to be removed at start: a
// process stopped mid-save leaves its file behind, while a save running now (in a replica sharing
// the directory) writes to its own as it goes.
const staleTemp = 10 * time.Minute

// diskState is the snapshot file's bookkeeping.
type diskState struct {
	mu       sync.Mutex // one save at a time
	saved    uint64     // catalog version last written (or restored)
	savedSeq int64      // and the change log's sequence it reflected
	savedAt  time.Time
	saving   atomic.Bool
	restored atomic.Bool  // the catalog started from the file
	journal  *diskJournal // the file's sync journal, until Start resumes it
	// unconfirmed: serving the file's state without having reached upstream since the start.
	unconfirmed atomic.Bool
}

// diskFile is what the file holds.
type diskFile struct {
	Format         int
	Upstream       string // Options.Upstream: URL and language
	Authenticated  bool
	Types          Types
	Log, Site      string // the change log's identity and the site's home URL
	Seq            int64
	SiteInfo       mapping.Site
	MultiDayCutoff string
	Version        uint64
	// The posts follow the head as raw frames of gob encodings of []*mapping.Post (writeFrames), in
	// index order (events, venues, organizers), so the restored lists need no real sort. Posts is
	// how many (0 in files of earlier versions): a file cut at a frame's end is refused.
	Posts int
	Terms []*mapping.Term
	Media []*mapping.Media
	// The plugin's digests of what the file holds (verify.go).
	PostSums, TermSums map[int]cmsclient.Digest
	OptionSums         map[string]cmsclient.Digest
	// Journal is the sync journal up to Seq (changes.go), so that the restarted catalog answers the
	// sync tokens its clients took before the restart; nil when it did not follow this log.
	Journal *diskJournal
	// posts are the posts to write, in index order: writeFrames encodes them one shard at a time,
	// so a save holds one shard's encoding, not the whole file's.
	posts []*mapping.Post
}

// Start makes the catalog ready: from the snapshot file when it holds this upstream's catalog, else by
// a full load. The file is served at once, before it is compared with WordPress: Start only asks the
// change feed's head (one light request) whether the file's log and sequence still hold, and the
// catalog then reports catching up (Health) until the first poll (Run starts with it) has replayed
// the log since the file's sequence, counted every post and compared the checksums of the whole
// catalog (confirm). When upstream cannot be reached, the file's state is served the same way (Health
// says so) and that poll runs once upstream answers. A file that cannot be used (unreadable, another
// upstream, or a log that cannot continue from its sequence) is discarded with a notice, never served.
func (c *Catalog) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opt.SnapshotPath != "" {
		if n := removeStaleTemps(filepath.Dir(c.opt.SnapshotPath), time.Now()); n > 0 {
			c.notify(fmt.Sprintf("removed %d snapshot temporary files left by stopped saves", n), nil)
		}
	}
	restored, err := c.restore()
	if err != nil {
		c.notify("snapshot discarded", err)
	}
	if restored == nil {
		return c.load(ctx)
	}
	defer debug.FreeOSMemory() // the file's decoding garbage (see load)
	head, err := c.client.FeedHead(ctx)
	unavailable := errors.Is(err, cmsclient.ErrUnavailable)
	if err == nil {
		err = c.continues(head)
	}
	if err != nil && !unavailable {
		c.notify("snapshot discarded", err)
		return c.load(ctx)
	}
	// Flagged before it is published: /readyz never shows the file's state as confirmed.
	c.disk.restored.Store(true)
	c.feed.catchingUp.Store(true)
	c.disk.unconfirmed.Store(unavailable)
	if unavailable {
		c.lastPollErr.Store(err.Error())
		c.notify("upstream unreachable: serving the snapshot until it answers", err)
	} else {
		c.lastPollOK.Store(time.Now().UnixNano())
	}
	c.publish(restored)
	c.journal.resume(c.disk.journal, c.feed.log, c.feed.seq.Load())
	c.disk.journal = nil
	c.feed.published()
	return nil
}

// continues checks that the change log can continue from the restored file's position: the same log
// and site, a sequence it still holds and has not gone back past (a restored backup).
func (c *Catalog) continues(head *cmsclient.FeedHead) error {
	seq := c.feed.seq.Load()
	switch {
	case head.Log != c.feed.log || head.Site != c.feed.site:
		return fmt.Errorf("%w: log %s of %s, the file has log %s of %s", errReload, head.Log, head.Site,
			c.feed.log, c.feed.site)
	case seq < head.Floor:
		return fmt.Errorf("%w: the file's sequence %d is older than the retention of the change log (%d)",
			errReload, seq, head.Floor)
	case seq > head.Head:
		return fmt.Errorf("%w: the file's sequence %d is past the head of the change log (%d): a reset or restored site",
			errReload, seq, head.Head)
	}
	return nil
}

// restore reads the snapshot file; nil without a file. On success the feed continues from the
// file's sequence.
func (c *Catalog) restore() (*Snapshot, error) {
	if c.opt.SnapshotPath == "" || !c.opt.Authenticated {
		return nil, nil
	}
	f, err := os.Open(c.opt.SnapshotPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// The decoding runs with the collector slowed down (fromDisk), bounded by a soft memory limit: the
	// catalog the file holds (restoreGrowth times the file) and room for the frames being decoded.
	// Unbounded, the heap peaked at about 7 times the file (1.3 GB for 190,000 events).
	if limit := int64(restoreGrowth*float64(info.Size())) + 128<<20; limit < debug.SetMemoryLimit(-1) {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	r := &frameReader{r: bufio.NewReaderSize(f, 1<<20), left: info.Size()}
	var d diskFile
	if err := r.head(&d); err != nil {
		return nil, fmt.Errorf("catalog: snapshot %s: %w", c.opt.SnapshotPath, err)
	}
	if err := c.usable(&d); err != nil {
		return nil, fmt.Errorf("catalog: snapshot %s: %w", c.opt.SnapshotPath, err)
	}
	snap, err := c.fromDisk(&d, r)
	if err != nil {
		return nil, fmt.Errorf("catalog: snapshot %s: %w", c.opt.SnapshotPath, err)
	}
	return snap, nil
}

// restoreGrowth is about what a restored catalog holds in memory per byte of its file (measured:
// 1.5 to 1.7 at 100,000 and 1,000,000 events).
const restoreGrowth = 1.6

// usable checks that a file holds this catalog's kind of state.
func (c *Catalog) usable(d *diskFile) error {
	switch {
	case d.Format != diskFormat:
		return fmt.Errorf("format %d, calshim reads %d", d.Format, diskFormat)
	case d.Upstream != c.opt.Upstream:
		return fmt.Errorf("it holds the catalog of %s, not of %s", d.Upstream, c.opt.Upstream)
	case d.Authenticated != c.opt.Authenticated || d.Types != c.opt.Types:
		return errors.New("it was loaded with another credential or mapping")
	case d.Log == "":
		return errors.New("it has no change log position")
	}
	return nil
}

// fromDisk builds the snapshot a file holds, its posts read from r, and makes the feed continue
// from its sequence.
func (c *Catalog) fromDisk(d *diskFile, r *frameReader) (*Snapshot, error) {
	loc, err := mapping.LocalizeZone(d.SiteInfo.Timezone)
	if err != nil {
		return nil, fmt.Errorf("catalog: snapshot time zone %q: %w", d.SiteInfo.Timezone, err)
	}
	// The decoding allocates the whole catalog at once: collecting garbage meanwhile only slows it.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	ordered, err := r.posts()
	if err != nil {
		return nil, err
	}
	if d.Posts > 0 && len(ordered) != d.Posts {
		return nil, fmt.Errorf("%d posts of %d: the file is cut short", len(ordered), d.Posts)
	}
	terms := make(map[int]*mapping.Term, len(d.Terms))
	for _, t := range d.Terms {
		terms[t.ID] = t
	}
	media := make(map[int]*mapping.Media, len(d.Media))
	for _, m := range d.Media {
		media[m.ID] = m
	}
	base := Snapshot{Version: d.Version, Site: d.SiteInfo, Location: loc, MultiDayCutoff: d.MultiDayCutoff,
		PerPage: c.opt.PerPage, LoadedAt: time.Now(), Authenticated: d.Authenticated, types: c.opt.Types}
	c.feed.on.Store(true)
	c.feed.plugin.Store(true)
	c.feed.log, c.feed.site = d.Log, d.Site
	c.feed.seq.Store(d.Seq)
	c.disk.saved, c.disk.savedSeq, c.disk.savedAt = d.Version, d.Seq, time.Now()
	c.sums = newSums() // gob decodes an empty map as nil
	maps.Copy(c.sums.posts, d.PostSums)
	maps.Copy(c.sums.terms, d.TermSums)
	maps.Copy(c.sums.options, d.OptionSums)
	c.disk.journal = d.Journal
	return buildOrdered(base, nil, ordered, terms, media), nil
}

// saveSoon writes the catalog in the background when it changed and the last write is old enough.
func (c *Catalog) saveSoon() {
	snap := c.snap.Load()
	if snap == nil || snap.Version == c.disk.saved || time.Since(c.disk.savedAt) < saveEvery {
		return
	}
	if !c.disk.saving.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.disk.saving.Store(false)
		if err := c.Save(); err != nil {
			c.notify("snapshot not written", err)
		}
	}()
}

// Save writes the catalog to its snapshot file (when it has one and syncs through the feed), through
// a temporary file renamed over the old one, so a reader never sees half a file. The file is left as
// it is when it already holds this version at this sequence (a replica restarted and stopped again
// with nothing changed: writing 100,000 events costs seconds of a rolling restart).
func (c *Catalog) Save() error {
	d, ok := c.diskImage()
	if !ok {
		return nil
	}
	c.disk.mu.Lock()
	defer c.disk.mu.Unlock()
	if d.Version == c.disk.saved && d.Seq == c.disk.savedSeq {
		if _, err := os.Stat(c.opt.SnapshotPath); err == nil {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(c.opt.SnapshotPath), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.opt.SnapshotPath), tempPattern)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone already once renamed into place
	if err := writeFrames(tmp, d); err != nil {
		_ = tmp.Close() // the write error is the one to report
		return fmt.Errorf("catalog: snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.opt.SnapshotPath); err != nil {
		return err
	}
	c.disk.saved, c.disk.savedSeq, c.disk.savedAt = d.Version, d.Seq, time.Now()
	return nil
}

// removeStaleTemps removes the regular files of dir named like a save's temporary file that were
// last written more than staleTemp before now, and returns how many it removed.
func removeStaleTemps(dir string, now time.Time) int {
	entries, _ := os.ReadDir(dir) // no directory yet: nothing to remove
	n := 0
	for _, e := range entries {
		if ok, _ := filepath.Match(tempPattern, e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err == nil && now.Sub(info.ModTime()) > staleTemp && os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// diskImage captures the current snapshot with the feed position it reflects (writeFrames encodes it
// outside the catalog lock: a snapshot is immutable).
func (c *Catalog) diskImage() (*diskFile, bool) {
	c.mu.Lock()
	snap := c.snap.Load()
	on := c.opt.SnapshotPath != "" && c.feed.on.Load() && snap != nil
	d := &diskFile{Format: diskFormat, Upstream: c.opt.Upstream, Types: c.opt.Types, Log: c.feed.log,
		Site: c.feed.site, Seq: c.feed.seq.Load(), PostSums: maps.Clone(c.sums.posts),
		TermSums: maps.Clone(c.sums.terms), OptionSums: maps.Clone(c.sums.options)}
	d.Journal = c.journal.image(c.feed.log, d.Seq)
	c.mu.Unlock()
	if !on {
		return nil, false
	}
	d.Authenticated, d.SiteInfo = snap.Authenticated, snap.Site
	d.MultiDayCutoff, d.Version = snap.MultiDayCutoff, snap.Version
	for _, t := range snap.terms {
		d.Terms = append(d.Terms, t)
	}
	for _, m := range snap.media {
		d.Media = append(d.Media, m)
	}
	d.posts = slices.Concat(snap.Events, snap.Venues, snap.Organizers)
	d.Posts = len(d.posts)
	return d, true
}

// writeFrames writes d as frames: the gob of d, then each shard of d.posts, each frame preceded by
// its length (8 bytes, big-endian).
func writeFrames(w io.Writer, d *diskFile) error {
	var head bytes.Buffer
	if err := gob.NewEncoder(&head).Encode(d); err != nil {
		return err
	}

	if err := writeFrame(w, head.Bytes()); err != nil {
		return err
	}

	var b bytes.Buffer
	for shard := range slices.Chunk(d.posts, framePosts) {
		b.Reset()
		if err := gob.NewEncoder(&b).Encode(shard); err != nil {
			return err
		}

		if err := writeFrame(w, b.Bytes()); err != nil {
			return err
		}
	}

	return nil
}

func writeFrame(w io.Writer, f []byte) error {
	if err := binary.Write(w, binary.BigEndian, uint64(len(f))); err != nil {
		return err
	}

	_, err := w.Write(f)
	return err
}

// frameReader reads what writeFrames wrote, a frame at a time; left is what remains of the file,
// which bounds a frame's length (a damaged length must not allocate gigabytes).
type frameReader struct {
	r    io.Reader
	left int64
}

// next reads the next frame; io.EOF after the last.
func (f *frameReader) next() ([]byte, error) {
	var n uint64
	if err := binary.Read(f.r, binary.BigEndian, &n); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("truncated frame header")
		}
		return nil, err
	}
	f.left -= 8
	if n > uint64(max(f.left, 0)) {
		return nil, errors.New("truncated frame")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(f.r, b); err != nil {
		return nil, errors.New("truncated frame")
	}
	f.left -= int64(n)
	return b, nil
}

// head decodes the first frame, the file's head.
func (f *frameReader) head(d *diskFile) error {
	b, err := f.next()
	if errors.Is(err, io.EOF) {
		return errors.New("empty file")
	}
	if err != nil {
		return err
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(d)
}

// posts reads and decodes the frames of posts that follow the head, as many at once as there are
// CPUs, and returns the posts in file order, each frame's moved into blocks (compactBlocks) as it is
// decoded: besides the catalog, a restart holds the frames in flight and their garbage.
func (f *frameReader) posts() ([]*mapping.Post, error) {
	var (
		mu    sync.Mutex
		parts = map[int][]*mapping.Post{}
	)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	n := 0
	for ; ; n++ {
		b, err := f.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = g.Wait() // the read's error is the one to report
			return nil, err
		}
		i := n
		g.Go(func() error {
			var part []*mapping.Post
			if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&part); err != nil {
				return fmt.Errorf("posts: %w", err)
			}
			compactBlocks(part)
			mu.Lock()
			defer mu.Unlock()
			parts[i] = part
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	size := 0
	for _, part := range parts {
		size += len(part)
	}
	ordered := make([]*mapping.Post, 0, size)
	for i := range n {
		ordered = append(ordered, parts[i]...)
	}
	return ordered, nil
}
