package cluster

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Proxy forwards a replica's requests to WordPress and counts them: feed polls, credential checks
// (users/me) and post look-ups apart from the rest. It is the one counting proxy of the project: the
// black-box tests (test/) and scripts/countproxy (bench-sync) use it too.
type Proxy struct {
	Addr  string
	feed  atomic.Int64
	me    atomic.Int64
	look  atomic.Int64
	other atomic.Int64
	srv   *http.Server
	mu    sync.Mutex
	last  []string // the last other requests, for reports
}

// NewProxy starts a counting proxy to WordPress on a loopback port (0: a free one).
func NewProxy(wpURL string, port int) (*Proxy, error) {
	target, err := url.Parse(wpURL)
	if err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}

	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = target.Host // Debian's WordPress picks its site by the Host header
	}, ErrorLog: log.New(io.Discard, "", 0)} // WordPress down on purpose is no news (502 to calshim)
	p := &Proxy{Addr: ln.Addr().String()}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/calshim/v1/changes"):
			p.feed.Add(1)
		case strings.HasSuffix(r.URL.Path, "/wp/v2/users/me"):
			p.me.Add(1)
			p.other.Add(1)
		case strings.Contains(r.URL.Path, "/calshim/v1/posts/"):
			p.look.Add(1)
			p.other.Add(1)
		default:
			p.other.Add(1)
			p.note(r)
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// CredentialChecks returns the users/me requests forwarded so far (counted in Counts' other too).
func (p *Proxy) CredentialChecks() int64 { return p.me.Load() }

func (p *Proxy) note(r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = append(p.last[max(0, len(p.last)-19):], r.Method+" "+r.URL.RequestURI())
}

// Others returns the last requests that were neither feed polls, credential checks nor look-ups.
func (p *Proxy) Others() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.last...)
}

// Lookups returns the post look-ups (calshim/v1/posts/ID) forwarded so far (in Counts' other too).
func (p *Proxy) Lookups() int64 { return p.look.Load() }

// Counts returns the feed requests and the other requests forwarded so far.
func (p *Proxy) Counts() (feed, other int64) { return p.feed.Load(), p.other.Load() }

// Total returns every request forwarded so far.
func (p *Proxy) Total() int64 { return p.feed.Load() + p.other.Load() }

// Port is the loopback port the proxy listens on, for a new proxy in its place after Close.
func (p *Proxy) Port() int {
	_, port, _ := net.SplitHostPort(p.Addr)
	n, _ := strconv.Atoi(port)
	return n
}

// Close stops the proxy.
func (p *Proxy) Close() { _ = p.srv.Close() }
