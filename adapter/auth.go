package adapter

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"

	"calshim/cmsclient"
	"calshim/mapping"
)

// viewerTTL is how long the capabilities of a credential are trusted before the CMS is asked again:
// a role change in WordPress reaches calshim within this time.
const viewerTTL = 30 * time.Second

// viewer is who is calling: nil for an anonymous caller (no credentials). Capabilities come from
// the CMS itself (GET /wp/v2/users/me?context=edit with the caller's credentials), so calshim never
// decides more than WordPress would.
type viewer struct {
	ID   int
	Caps map[string]bool
	// creds are the caller's own, forwarded as given on every write. Never logged.
	creds cmsclient.Credentials
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

func credentialKey(c cmsclient.Credentials) string {
	sum := sha256.Sum256([]byte(c.Authorization + "\x00" + c.Cookie + "\x00" + c.Nonce))
	return hex.EncodeToString(sum[:])
}

// credentials are the caller's, as WordPress reads them: the Authorization header, or its cookie
// authentication — logged-in cookies with the nonce from X-WP-Nonce or the _wpnonce parameter.
func credentials(r *request) cmsclient.Credentials {
	c := cmsclient.Credentials{
		Authorization: r.gc.GetHeader("Authorization"),
		Nonce:         r.gc.GetHeader("X-WP-Nonce"),
	}

	if c.Nonce == "" {
		c.Nonce, _ = r.params.str("_wpnonce")
	}

	if cookie := r.gc.GetHeader("Cookie"); strings.Contains(cookie, "wordpress_logged_in_") {
		c.Cookie = cookie
	}

	return c
}

// resolveViewer identifies the caller of r. No credentials (a cookie without a nonce included, as
// WordPress treats it): anonymous (nil, nil). Credentials WordPress rejects: its own answer (401
// for a bad password, 403 rest_cookie_invalid_nonce for a bad nonce), as WordPress answers every
// request carrying them.
func (s *Server) resolveViewer(r *request) (*viewer, error) {
	creds := credentials(r)
	if creds.Empty() {
		return nil, nil
	}

	key := credentialKey(creds)
	if v, ok := s.viewers.cache.Get(key); ok {
		return v.(*viewer).forMethod(r.method), nil
	}

	// Refused credentials get WordPress' refusal again without asking it, and checks of new ones
	// are rationed per client address, so random credentials cannot make calshim hammer WordPress.
	if refusal, ok := s.limits.refusal(key); ok {
		return nil, refusal
	}

	if err := s.limits.admitAuthCheck(r.gc); err != nil {
		return nil, err
	}

	me, err := r.cms.Me(r.gc.Request.Context(), creds)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Code == "rest_not_logged_in" {
		// Credentials WordPress does not try (another scheme, a malformed header, an empty
		// password): the caller is anonymous, as for every other route of WordPress.
		s.viewers.cache.SetDefault(key, (*viewer)(nil))
		return nil, nil
	}

	if errors.As(err, &ue) &&
		(ue.Status == http.StatusUnauthorized || ue.Code == "rest_cookie_invalid_nonce") {
		refusal := fromUpstream(ue)
		s.limits.remember(key, refusal)
		return nil, refusal
	}

	if err != nil {
		return nil, err
	}

	v := &viewer{ID: me.ID, Caps: me.Caps, creds: creds}
	s.viewers.cache.SetDefault(key, v)
	return v.forMethod(r.method), nil
}

// readAllCap is the capability of the plugin's calshim_reader role.
const readAllCap = "calshim_read_all"

// forMethod returns the viewer as WordPress sees it for a request of method: the must-use plugin
// grants holders of calshim_read_all the edit and read_private capabilities of the three post types
// while serving a GET or HEAD (Calshim_Bridge::grant_read_caps), which users/me does not list.
func (v *viewer) forMethod(method string) *viewer {
	if v == nil || !v.Caps[readAllCap] || (method != http.MethodGet && method != http.MethodHead) {
		return v
	}

	granted := &viewer{ID: v.ID, Caps: maps.Clone(v.Caps), creds: v.creds}
	for _, plural := range []string{"tribe_events", "tribe_venues", "tribe_organizers"} {
		actions := []string{"edit", "edit_others", "edit_private", "edit_published", "read_private"}
		for _, action := range actions {
			granted.Caps[action+"_"+plural] = true
		}
	}

	return granted
}

// postCaps are the primitive capabilities of one post type (capability_type
// tribe_event/tribe_events and so on), as WordPress' map_meta_cap uses them.
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
	switch p.Status() {
	case "publish":
		return true
	case "private":
		return v.can(capsOf(p.Type()).cap("read_private")) || (v != nil && p.Author == v.ID)
	}
	return v.mayEdit(p)
}

// mayEdit is WordPress' edit_post (map_meta_cap): own posts need edit_*, and edit_published_* once
// published; others' need edit_others_* (and edit_published_*/edit_private_* by status).
func (v *viewer) mayEdit(p *mapping.Post) bool {
	return v.mayAct(p, "edit")
}

// mayAct is WordPress' edit_post / delete_post for action "edit" / "delete".
func (v *viewer) mayAct(p *mapping.Post, action string) bool {
	c := capsOf(p.Type())
	if v == nil || !v.can(c.cap(action)) {
		return false
	}

	if p.Author != v.ID && !v.can(c.cap(action+"_others")) {
		return false
	}

	switch p.Status() {
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
		if m == http.MethodGet || (rt.may != nil && rt.may(v, writeAction(m))) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// viewerKey is the gin context key the resolved viewer is kept under (for allow).
const viewerKey = "calshim.viewer"

// editContext reports whether the request asks for context=edit as a caller who may edit p: such
// callers see a password-protected event, venue or organizer without its password (the original:
// can_access_password_content in Single_Event::validate_event_accessible, Single_Venue::get and
// Single_Organizer::get).
func (r *request) editContext(p *mapping.Post) bool {
	c, _ := r.params.str("context")
	return c == "edit" && r.viewer.mayEdit(p)
}

// jsonLDReadable is the visibility rule of TEC's JSON-LD generator
// (Tribe__JSON_LD__Abstract::get_data): a visitor sees published posts only; a logged-in user any
// post with the primitive "read" capability, and private ones with "read_private_posts" (the posts'
// capability, whatever the post type), so a subscriber gets json_ld on a draft it may read through
// the API.
func (v *viewer) jsonLDReadable(p *mapping.Post) bool {
	switch {
	case v == nil:
		return p.Status() == "publish"
	case p.Status() == "private":
		return v.can("read_private_posts")
	}
	return v.can("read")
}

// writeAction is the action whose permission a write method needs.
func writeAction(method string) string {
	if method == http.MethodDelete {
		return "delete"
	}
	return "edit"
}
