package adapter

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"calshim/catalog"
)

// readyz answers 200 once the catalog is loaded, with its freshness; 503 before. A catalog restored
// from its snapshot file is ready at once, flagged as catching up until it has reached upstream's
// state (catalog.Start). Anyone may ask
// it, so it tells no more of a failed poll than publicPollError.
func (s *Server) readyz(gc *gin.Context) {
	h := s.cat.Health()
	body := gin.H{"loaded": h.Loaded, "last_poll_ok": h.LastPollOK, "last_poll_error": publicPollError(h),
		"sync": gin.H{"mode": h.Sync.Mode, "sequence": h.Sync.Seq, "lag_seconds": h.Sync.Lag.Seconds(),
			"from_snapshot": h.Sync.Restored, "snapshot_unconfirmed": h.Sync.Unconfirmed,
			"catching_up": h.Sync.CatchingUp}}
	if snap := s.cat.Snapshot(); snap != nil {
		body["timezone"] = snap.Site.Timezone // the site's, as the catalog last read it
	}

	switch {
	case h.Sync.Unconfirmed:
		body["note"] = "serving the local snapshot: upstream has not answered since calshim started"
	case h.Sync.CatchingUp:
		body["note"] = "serving the local snapshot while it is brought up to date with upstream"
	}

	if !h.LastPollOK.IsZero() {
		body["staleness_seconds"] = time.Since(h.LastPollOK).Seconds()
	}

	if s.draining() {
		body["draining"] = true
	}

	gc.JSON(s.readyStatus(h.Loaded), body)
}

// publicPollError is what /readyz says of the last poll's failure: a fixed reason. The error itself
// names upstream hosts, addresses and paths, so it goes to the log (the catalog's poll warning) and
// to the metrics (calshim_catalog_last_poll_failed) only.
func publicPollError(h catalog.Health) string {
	if h.LastPollErr == "" {
		return ""
	}
	return "upstream unreachable or failing; see calshim's log"
}

// healthz answers the liveness probe. The probes stay on the public handler too (onProbes), where
// load balancers and orchestrators ask them; /readyz shows no detail of upstream (publicPollError).
func healthz(_ *Server, gc *gin.Context) { gc.String(http.StatusOK, "ok\n") }

// draining reports whether the process is stopping: /readyz then answers 503 so that load
// balancers stop sending requests, while those that still arrive are served.
func (s *Server) draining() bool { return s.opt.Draining != nil && s.opt.Draining() }

// readyStatus is the status of /readyz: 503 before the catalog is loaded and while draining.
func (s *Server) readyStatus(loaded bool) int {
	if !loaded || s.draining() {
		return http.StatusServiceUnavailable
	}
	return http.StatusOK
}
