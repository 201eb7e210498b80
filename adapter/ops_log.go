package adapter

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"calshim/cmsclient"
)

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
	s.shadowAfter(gc, t.route)
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
