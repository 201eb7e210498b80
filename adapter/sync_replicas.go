package adapter

import (
	"context"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/mapping/php"
)

// This file is what running several replicas behind a load balancer needs of the HTTP side: a
// request reaching a replica whose catalog is still loading waits for it (catalog.load_wait); and
// read-your-writes across replicas. A write answers the change log sequence WordPress had reached
// once the write was done (X-Calshim-Seq); a later request that sends it back (X-Calshim-Min-Seq),
// to whichever replica, waits until that replica's catalog has caught up with it
// (catalog.sequence_wait), so it shows the write.

const (
	seqHeader    = "X-Calshim-Seq"
	minSeqHeader = "X-Calshim-Min-Seq"
)

// snapshotFor returns the snapshot a request is served from, nil when the catalog is not loaded
// within the load wait. With X-Calshim-Min-Seq it first waits (up to the sequence wait) for the
// catalog to reach that sequence, and tells the sequence it reached in X-Calshim-Seq.
func (s *Server) snapshotFor(gc *gin.Context, cat *catalog.Catalog) *catalog.Snapshot {
	snap := cat.Snapshot()
	if snap == nil { // the timer shows in a loaded catalog's requests' CPU profile: only here
		ctx, cancel := context.WithTimeout(gc.Request.Context(), s.opt.LoadWait)
		snap = cat.WaitLoaded(ctx)
		cancel()
	}

	if snap == nil {
		return nil
	}

	asked := strings.TrimSpace(gc.GetHeader(minSeqHeader))
	if asked == "" { // the usual case: no parse error to allocate
		return snap
	}

	want, err := strconv.ParseInt(asked, 10, 64)
	if err != nil || want <= 0 {
		return snap
	}

	ctx, cancel := context.WithTimeout(gc.Request.Context(), s.opt.SequenceWait)
	defer cancel()
	if have, ok := cat.WaitSequence(ctx, want); ok {
		gc.Header(seqHeader, strconv.FormatInt(have, 10))
	}

	return cat.Snapshot()
}

// stampSequence tells the client of a write the change log sequence that includes it: the head of
// the log, read once the write is done. The plugin writes a request's rows in PHP's shutdown
// functions, which PHP's built-in server, mod_php and PHP-FPM all run before the response ends (as
// long as nothing calls fastcgi_finish_request), so the head read afterwards includes them: the
// write's refresh, a feed read made after it, gave it (catalog.WriteHead); when that refresh failed,
// it is read again. Nothing when the catalog does not sync through the feed, or the head cannot be
// read.
func (t *tx) stampSequence(ctx context.Context) {
	if _, ok := t.cat.Sequence(); !ok {
		return
	}

	if head, ok := t.cat.WriteHead(); ok {
		t.r.gc.Header(seqHeader, strconv.FormatInt(head, 10))
		return
	}

	head, err := t.r.cms.FeedHead(ctx)
	if err != nil {
		t.s.log.Warn("change log head not read after a write", zap.Error(err))
		return
	}

	t.r.gc.Header(seqHeader, strconv.FormatInt(head.Head, 10))
}

// sequenceCORS lets browsers read X-Calshim-Seq and send X-Calshim-Min-Seq across origins; the
// headers of other answers are left as they were.
func sequenceCORS(gc *gin.Context) {
	h := gc.Writer.Header()
	if h.Get(seqHeader) != "" {
		h.Set("Access-Control-Expose-Headers", h.Get("Access-Control-Expose-Headers")+", "+seqHeader)
	}

	asked := gc.GetHeader("Access-Control-Request-Headers")
	if asked != "" && strings.Contains(php.Strtolower(asked), php.Strtolower(minSeqHeader)) {
		h.Set("Access-Control-Allow-Headers", h.Get("Access-Control-Allow-Headers")+", "+minSeqHeader)
	}
}
