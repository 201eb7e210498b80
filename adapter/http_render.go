package adapter

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

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
	s.keepForShadow(gc, out)
	if notModified(gc, out) {
		delete(h, "Content-Length")
		gc.Status(http.StatusNotModified)
		return
	}

	if _, overridden := gc.Get(headOverride); overridden {
		h["Content-Length"] = []string{"0"} // the answer to a GET or POST: its length, nothing
	}
	gc.Status(out.status)
	gc.Writer.WriteHeaderNow() // answered, body or not: gin must not add its own 404 to a HEAD's
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

// etagOf is the validator of a rendered body: bodies are deterministic (ordered objects), so equal
// bodies give equal tags across requests and replicas.
// xxhash, not FNV: FNV's byte-at-a-time loop over a long list showed in an uncached answer's profile.
func etagOf(body []byte) string {
	return `"` + strconv.FormatUint(xxhash.Sum64(body), 36) + `"`
}

// cacheHeaders sets Cache-Control, and the ETag of anonymous GETs: they may be revalidated by
// shared caches; anything else is never stored, as WordPress sends no-cache headers to logged-in
// users.
func cacheHeaders(h http.Header, out *rendered) {
	if out.etag == "" {
		h.Set("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
		return
	}

	h.Set("ETag", out.etag)
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
}

// notModified reports whether the request's If-None-Match matches out's ETag (a 304 answer).
func notModified(gc *gin.Context, out *rendered) bool {
	inm := gc.GetHeader("If-None-Match")
	if out.etag == "" || inm == "" {
		return false
	}

	for _, tag := range strings.Split(inm, ",") {
		if t := strings.TrimSpace(tag); t == out.etag || t == "*" {
			return true
		}
	}

	return false
}

// corsHeaders answers browsers as WordPress' rest_send_cors_headers does: the calling origin is
// echoed with credentials allowed.
func corsHeaders(gc *gin.Context) {
	origin := gc.GetHeader("Origin")
	if origin == "" {
		return
	}

	h := gc.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", "OPTIONS, GET, POST, PUT, PATCH, DELETE")
	h.Set("Access-Control-Allow-Credentials", "true")
	if h.Get("Vary") != "Origin" { // edge-cached answers carry it already (edgecache.go)
		h.Add("Vary", "Origin")
	}
}
