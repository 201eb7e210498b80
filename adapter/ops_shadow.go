package adapter

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"calshim/adapter/shadow"
)

// The live shadow (adapter/shadow): after a client has its answer, a sample of the anonymous GETs
// of the v1 routes is compared with the original's answer to the same request. This file decides
// which requests may go (never a write, never a request carrying credentials, a cookie or a nonce,
// never calshim's own routes or parameters), and gives the shadow calshim's own handler to ask.

// newShadow starts the live shadow when Options.Shadow names the original; h is calshim's public
// handler, which the shadow asks again for the same URL.
func (s *Server) newShadow(h http.Handler) {
	if s.opt.Shadow.URL == "" {
		return
	}
	opt := s.opt.Shadow
	opt.Calshim, opt.Registry, opt.Log = shadow.Handler{H: h}, s.metrics.registry, s.log.Named("shadow")
	s.shadowed = map[string]string{}
	for _, rt := range s.routes {
		if !rt.hidden && rt.pattern != "" && rt.endpoint(http.MethodGet) != nil {
			s.shadowed[rt.pattern] = "GET " + rt.docPath
		}
	}
	s.shadow = shadow.New(opt)
}

// shadowSent is the gin context key of a sampled answer kept as it was sent (keepForShadow).
const shadowSent = "calshim.shadowSent"

// keepForShadow keeps a sampled GET's answer as send writes it, so that the comparison reads the
// bytes the client got instead of rendering the answer again; shadowAfter then decides whether
// the request may go to the original.
func (s *Server) keepForShadow(gc *gin.Context, out *rendered) {
	if gc.Request.Method != http.MethodGet || !s.shadow.Sample() {
		return
	}
	gc.Set(shadowSent, shadow.Sent(out.status, gc.Writer.Header(), out.body))
}

// shadowAfter offers the request just answered to the shadow (from the access log, once the
// answer is written); pattern is the route it matched.
func (s *Server) shadowAfter(gc *gin.Context, pattern string) {
	route, ok := s.shadowed[pattern]
	sent, sampled := gc.Get(shadowSent)
	if !ok || !sampled {
		return
	}
	req := gc.Request
	if !anonymousRead(req, gc.Writer.Status()) {
		return
	}
	addr, ok := s.resolve(req)
	if !ok || addr.lang != "" || addr.ns == "" {
		return // the original serves one language, at its own address
	}

	origin, root := scheme(req)+"://"+req.Host, addr.root
	if strings.HasSuffix(root, "?rest_route=") {
		root = "" // the plain form: its URLs stay plain (a deliberate difference), only the host is rewritten
	}
	s.shadow.Offer(shadow.Query{Route: route, Target: req.URL.RequestURI(), Path: addr.route,
		Query: shadow.WithoutParam(req.URL.RawQuery, "rest_route"), NS: addr.ns, Origin: origin,
		ID: firstValue(gc.Writer.Header()["X-Request-Id"]), Sent: sent.(*shadow.Answer)}, root)
}

// anonymousRead reports whether a request may be sent to the original as well: a GET (not turned
// into one, nor into anything else, by _method or X-HTTP-Method-Override) without credentials,
// cookies or a nonce, without calshim's own parameters, answered with neither 429 nor 503 (the
// client was refused, not answered).
func anonymousRead(req *http.Request, status int) bool {
	h := req.Header
	if req.Method != http.MethodGet || status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable ||
		h.Get("Authorization") != "" || h.Get("Cookie") != "" || h.Get("X-WP-Nonce") != "" ||
		h.Get("X-HTTP-Method-Override") != "" || shadow.IsInternal(req.Context()) {
		return false
	}
	// By substring, without parsing the query: a request that only looks like one is skipped too.
	for _, own := range []string{"_method", "_wpnonce", "sync_token"} {
		if strings.Contains(req.URL.RawQuery, own) {
			return false
		}
	}
	return true
}

// shadowDifferences serves the latest differences (operations handler only).
func (s *Server) shadowDifferences(gc *gin.Context) {
	if s.shadow == nil {
		e := errShadowOff
		gc.JSON(e.Status, gin.H{"code": e.Code, "message": e.Message})
		return
	}
	s.shadow.Differences(gc.Writer, gc.Request)
}
