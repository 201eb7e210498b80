package adapter

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"

	"calshim/cmsclient"
	"calshim/mapping"
)

// viewerTTL is how long the capabilities of a credential are trusted before the CMS is asked again: a
// role change in WordPress reaches calshim within this time.
const viewerTTL = 30 * time.Second

// viewer is who is calling: nil for an anonymous caller (no Authorization header). Capabilities come
// from the CMS itself (GET /wp/v2/users/me?context=edit with the caller's header), so calshim never
// decides more than WordPress would.
type viewer struct {
	ID   int
	Caps map[string]bool
	// auth is the caller's Authorization header, forwarded as is on every write. Never logged.
	auth string
}

// can reports whether the viewer holds a primitive capability; false for anonymous callers.
func (v *viewer) can(capability string) bool { return v != nil && v.Caps[capability] }

// canAll reports whether the viewer holds every capability given.
func (v *viewer) canAll(caps ...string) bool {
	return v != nil && !slices.ContainsFunc(caps, func(c string) bool { return !v.Caps[c] })
}

// viewers caches resolved viewers by a hash of the credential: the header itself is never a key, so
// a heap dump or a debug listing of the cache shows no secret.
type viewers struct{ cache *gocache.Cache }

func newViewers() *viewers { return &viewers{cache: gocache.New(viewerTTL, time.Minute)} }

func credentialKey(auth string) string {
	sum := sha256.Sum256([]byte(auth))
	return hex.EncodeToString(sum[:])
}

// resolveViewer identifies the caller of r. No Authorization header: anonymous (nil, nil). Credentials
// WordPress rejects: its own 401 answer, as WordPress answers every request carrying bad credentials.
func (s *Server) resolveViewer(r *request) (*viewer, error) {
	auth := r.gc.GetHeader("Authorization")
	if auth == "" {
		return nil, nil
	}
	key := credentialKey(auth)
	if v, ok := s.viewers.cache.Get(key); ok {
		return v.(*viewer), nil
	}
	res, err := r.cms.Send(r.gc.Request.Context(), http.MethodGet, "/wp/v2/users/me",
		url.Values{"context": {"edit"}}, auth, nil)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Status == http.StatusUnauthorized {
		return nil, newError(http.StatusUnauthorized, ue.Code, ue.Message)
	}
	if err != nil {
		return nil, err
	}
	var me struct {
		ID   int             `json:"id"`
		Caps map[string]bool `json:"capabilities"`
	}
	if err := json.Unmarshal(res.Body, &me); err != nil {
		return nil, err
	}
	v := &viewer{ID: me.ID, Caps: me.Caps, auth: auth}
	s.viewers.cache.SetDefault(key, v)
	return v, nil
}

// forbidden is WordPress' rest_forbidden: 401 for anonymous callers, 403 for logged-in ones.
func forbidden(v *viewer) *apiError {
	status := http.StatusForbidden
	if v == nil {
		status = http.StatusUnauthorized
	}
	return newError(status, "rest_forbidden", "Sorry, you are not allowed to do that.")
}

// postCaps are the primitive capabilities of one post type (capability_type tribe_event/tribe_events
// and so on), as WordPress' map_meta_cap uses them.
type postCaps struct{ plural string }

func (c postCaps) cap(action string) string { return action + "_" + c.plural }

func capsOf(postType string) postCaps {
	switch {
	case strings.HasSuffix(postType, "venue"):
		return postCaps{"tribe_venues"}
	case strings.HasSuffix(postType, "organizer"):
		return postCaps{"tribe_organizers"}
	}
	return postCaps{"tribe_events"}
}

// mayRead is WordPress' read_post for the viewer: published posts for everybody; private ones with
// read_private_*; other statuses (draft, pending, future, trash) for who may edit them.
func (v *viewer) mayRead(p *mapping.Post) bool {
	switch p.Status {
	case "publish":
		return true
	case "private":
		return v.can(capsOf(p.Type).cap("read_private")) || (v != nil && p.Author == v.ID)
	}
	return v.mayEdit(p)
}

// mayEdit is WordPress' edit_post (map_meta_cap): own posts need edit_*, and edit_published_* once
// published; others' need edit_others_* (and edit_published_*/edit_private_* by status).
func (v *viewer) mayEdit(p *mapping.Post) bool {
	return v.mayAct(p, "edit")
}

// mayDelete is delete_post, built like mayEdit with the delete_* capabilities.
func (v *viewer) mayDelete(p *mapping.Post) bool {
	return v.mayAct(p, "delete")
}

func (v *viewer) mayAct(p *mapping.Post, action string) bool {
	c := capsOf(p.Type)
	if v == nil || !v.can(c.cap(action)) {
		return false
	}
	if p.Author != v.ID && !v.can(c.cap(action+"_others")) {
		return false
	}
	switch p.Status {
	case "publish", "future":
		return v.can(c.cap(action + "_published"))
	case "private":
		return v.can(c.cap(action + "_private"))
	}
	return true
}

// allow is WordPress' Allow header: the methods of the matched route whose permission the viewer
// passes, in the route's registration order (GET is public). The write methods are judged on the
// general capability of the route's resource, as WordPress does before it knows the object.
func allow(gc *gin.Context, rt *route) string {
	v, _ := gc.Value(viewerKey).(*viewer)
	var out []string
	for _, m := range rt.order {
		if m == http.MethodGet || (rt.allowed != nil && rt.allowed(v, m)) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// viewerKey is the gin context key the resolved viewer is kept under (for allow).
const viewerKey = "calshim.viewer"

// editContext reports whether the request asks for context=edit as a caller who may edit p: such
// callers see a password-protected event, venue or organizer without its password (reference §3.3).
func (r *request) editContext(p *mapping.Post) bool {
	c, _ := r.params.str("context")
	return c == "edit" && r.viewer.mayEdit(p)
}
