package adapter

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/mapping"
)

// header is one response header.
type header struct{ name, value string }

// rendered is a response ready to send (and to cache).
type rendered struct {
	status  int
	headers []header
	body    []byte
	etag    string // set on cacheable (anonymous GET) responses
	keys    string // the surrogate keys of an anonymous answer (edgecache.go); "" when off
	// fixed are the response headers of a cached answer (responseHeaders), built when it is stored:
	// they depend only on what its cache key holds.
	fixed http.Header
	// release gives body's pooled buffer back once sent (send); nil for an answer the response
	// cache holds (store keeps a copy): an uncached list's body was a third of its garbage.
	release func()
}

// render encodes a handler's result or error with the original's headers. WordPress' `_envelope`
// parameter wraps status and headers into the body and answers 200.
func (s *Server) render(gc *gin.Context, rt *route, res *response, err error) *rendered {
	status, body := 0, any(nil)
	var headers []header
	if err != nil {
		status, body = errorBody(err)
		if status >= 500 {
			s.log.Error("request failed", zap.String("route", traceOf(gc).route),
				zap.String("error", clip(err.Error())))
		}
	} else {
		status, body = res.status, res.body
		headers = append(headers, res.headers...)
		if res.total != nil {
			headers = append(headers, header{"X-TEC-Total", strconv.Itoa(*res.total)},
				header{"X-TEC-TotalPages", strconv.Itoa(*res.totalPages)})
		}
	}

	if rt != nil {
		headers = append(headers, header{"Allow", allow(gc, rt)})
	}

	if _, ok := gc.GetQuery("_envelope"); ok && !isRaw(body) {
		env := mapping.Object{}
		for _, h := range headers {
			if n, err := strconv.Atoi(h.value); err == nil {
				env = append(env, mapping.KV{Key: h.name, Value: n})
			} else {
				env = append(env, mapping.KV{Key: h.name, Value: h.value})
			}
		}
		body = mapping.Object{
			{Key: "body", Value: body},
			{Key: "status", Value: status},
			{Key: "headers", Value: env},
		}
		status, headers = http.StatusOK, nil
	}

	if raw, ok := body.(rawBody); ok {
		return &rendered{status: status, headers: headers, body: raw}
	}

	encoded, release := mapping.EncodeJSONPooled(body)
	return &rendered{status: status, headers: headers, body: encoded, release: release}
}

// exposedHeaders are the headers browsers may read from every answer (WordPress' list plus TEC's).
const exposedHeaders = "X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages"

// expose adds a header browsers may read to the answers that carry it (CORS).
func expose(res *response, name string) {
	res.headers = append(res.headers,
		header{"Access-Control-Expose-Headers", exposedHeaders + ", " + name})
}

// send writes a rendered response with the headers every WordPress REST answer carries. A cached
// answer's headers were built once, when it was stored (fixed); others are built here.
func (s *Server) send(gc *gin.Context, out *rendered) {
	if out.release != nil {
		defer out.release()
	}

	fixed := out.fixed
	if fixed == nil {
		fixed = s.responseHeaders(gc.Request, out)
	}

	h := gc.Writer.Header()
	for k, v := range fixed {
		h[k] = v // shared, never modified: net/http only reads them
	}

	corsHeaders(gc)
	sequenceCORS(gc)
	if notModified(gc, out) {
		delete(h, "Content-Length")
		gc.Status(http.StatusNotModified)
		return
	}

	gc.Status(out.status)
	if gc.Request.Method != http.MethodHead {
		_, _ = gc.Writer.Write(out.body)
	}
}

// responseHeaders are the headers of out but CORS's: WordPress' own, the handler's, the cache
// validators and Content-Length (so that net/http sends the body in one piece, not chunked).
func (s *Server) responseHeaders(req *http.Request, out *rendered) http.Header {
	h := make(http.Header, 12+len(out.headers))
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Link", "<"+s.linkRoot(req)+`>; rel="https://api.w.org/"`)
	h.Set("Access-Control-Expose-Headers", exposedHeaders)
	h.Set("Access-Control-Allow-Headers",
		"Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type")
	for _, kv := range out.headers {
		h.Set(kv.name, kv.value)
	}

	cacheHeaders(h, out)
	s.edge.headers(h, out)
	h.Set("Content-Length", strconv.Itoa(len(out.body)))
	return h
}

// linkRoot is the REST root the Link header points at, in the form the client used.
func (s *Server) linkRoot(req *http.Request) string {
	if a, ok := s.resolve(req); ok {
		return a.restRoot()
	}
	return scheme(req) + "://" + req.Host + s.opt.RESTRoot + "/"
}

// write renders and sends in one step (for answers that bypass the cache).
func (s *Server) write(gc *gin.Context, rt *route, err error) {
	s.send(gc, s.render(gc, rt, nil, err))
}

// accessLog writes one line per request: route template (never the raw path with its IDs), status,
// duration, cache result, the client's address (clientAddr: behind trusted proxies, the one they
// name), the body's bytes and the request ID. Query strings may carry passwords, so they are not
// logged; the method, which `_method` or X-HTTP-Method-Override may set to any text, is clipped.
// The request ID is echoed in the answer and sent to WordPress with every upstream request made for
// this one (cmsclient.WithRequestID), so that the logs of a proxy, calshim and WordPress meet.
func (s *Server) accessLog(gc *gin.Context) {
	start := time.Now()
	// The canonical key, as net/http stores it: Get and Set would canonicalize it on every request.
	id := requestID(firstValue(gc.Request.Header["X-Request-Id"]))
	gc.Writer.Header()["X-Request-Id"] = []string{id}
	gc.Request = gc.Request.WithContext(cmsclient.WithRequestID(gc.Request.Context(), id))
	t := tracePool.Get().(*trace)
	t.ResponseWriter = gc.Writer
	gc.Writer = t
	gc.Next()
	s.metrics.observe(gc, t, time.Since(start))
	t.fields = append(t.fields[:0],
		zap.String("method", clip(gc.Request.Method)),
		zap.String("route", t.route),
		zap.Int("status", gc.Writer.Status()),
		zap.Duration("duration", time.Since(start)),
		zap.String("cache", t.cache),
		zap.Stringer("client", clientAddr(gc.Request, s.opt.Limits.TrustedProxies)),
		zap.Int("bytes", max(gc.Writer.Size(), 0)),
		zap.String("request_id", id))
	s.access.Info("request", t.fields...)
	*t = trace{fields: t.fields[:0]}
	tracePool.Put(t)
}

func firstValue(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// maxRequestID bounds the length of a request ID taken from a client.
const maxRequestID = 64

// requestID is the client's X-Request-ID when it is a short token of letters, digits, '-', '_' and
// '.' (what proxies and tracers send: UUIDs, hex), else a new random one: the ID goes into logs and
// upstream headers, so it must not carry what a client chooses beyond that.
func requestID(given string) string {
	ok := given != "" && len(given) <= maxRequestID
	for i := 0; ok && i < len(given); i++ {
		c := given[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return given
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// trace is what the handlers tell the access log and the metrics about a request: the route
// pattern it matched and whether the response cache answered it. It rides on the response writer
// (gin resets the writer for the next request) because gin's Set allocates a map per request.
type trace struct {
	gin.ResponseWriter
	route string
	cache string // "hit", "miss" or "" (not cacheable)
	// fields are the access log line's, kept with the pooled trace: a fresh slice per line escapes
	// to the heap through zap's variadic call.
	fields []zap.Field
}

var tracePool = sync.Pool{New: func() any { return new(trace) }}

// maxLogged bounds each text a log line takes from a request, so that a line costs what calshim
// chooses, not what the client sent (a header may hold a megabyte).
const maxLogged = 256

// clip cuts s to maxLogged bytes (at a character boundary) and says how many bytes it left out.
func clip(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	cut := maxLogged
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[" + strconv.Itoa(len(s)-cut) + " bytes clipped]"
}

// traceOf returns the request's trace; a detached one when no access log wraps the writer.
func traceOf(gc *gin.Context) *trace {
	if t, ok := gc.Writer.(*trace); ok {
		return t
	}
	return &trace{}
}

// recoverPanic turns a handler panic into the 500 error body and a log line, never a dropped
// connection.
func (s *Server) recoverPanic(gc *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("panic", zap.String("panic", clip(fmt.Sprint(v))),
				zap.String("route", traceOf(gc).route), zap.Stack("stack"))
			s.write(gc, nil, fmt.Errorf("panic: %v", v))
			gc.Abort()
		}
	}()
	gc.Next()
}

// readyz answers 200 once the catalog is loaded, with its freshness; 503 before. Anyone may ask
// it, so it tells no more of a failed poll than publicPollError.
func (s *Server) readyz(gc *gin.Context) {
	h := s.cat.Health()
	body := gin.H{"loaded": h.Loaded, "last_poll_ok": h.LastPollOK, "last_poll_error": publicPollError(h),
		"sync": gin.H{"mode": h.Sync.Mode, "sequence": h.Sync.Seq, "lag_seconds": h.Sync.Lag.Seconds(),
			"from_snapshot": h.Sync.Restored, "snapshot_unconfirmed": h.Sync.Unconfirmed}}
	if snap := s.cat.Snapshot(); snap != nil {
		body["timezone"] = snap.Site.Timezone // the site's, as the catalog last read it
	}

	if h.Sync.Unconfirmed {
		body["note"] = "serving the local snapshot: upstream has not answered since calshim started"
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
