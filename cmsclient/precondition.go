package cmsclient

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// IfVersionHeader carries a conditional write's precondition to the plugin, which checks it under a
// lock on the object, against its stored state, before WordPress changes anything; on a mismatch it
// answers 412 calshim_precondition_failed (the plugin's Calshim_Precondition).
const IfVersionHeader = "X-Calshim-If-Version"

// IfVersion is the precondition of a conditional write: the object (a post or a term) must still
// have one of Versions (the plugin's `calshim.version`; "*": it exists).
type IfVersion struct {
	Kind     string // "post" or "term"
	ID       int
	Versions []string
	sent     atomic.Bool
}

type ifVersionKey struct{}

// WithIfVersion returns ctx carrying p: the first write (POST, PUT, PATCH or DELETE) that Send makes
// with it to the object's item path (…/{ID}) carries the precondition. Later writes of the same
// object in the request go without: the first one moved the version.
func WithIfVersion(ctx context.Context, p *IfVersion) context.Context {
	return context.WithValue(ctx, ifVersionKey{}, p)
}

// ifVersionFor is the header value a request gets, "" for none.
func ifVersionFor(ctx context.Context, method, path string) string {
	p, _ := ctx.Value(ifVersionKey{}).(*IfVersion)
	if p == nil || method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions ||
		!strings.HasSuffix(path, "/"+strconv.Itoa(p.ID)) || !p.sent.CompareAndSwap(false, true) {
		return ""
	}
	return p.Kind + ":" + strconv.Itoa(p.ID) + ":" + strings.Join(p.Versions, ",")
}
