package cluster

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// Proxy forwards a replica's requests to WordPress and counts them: feed polls apart from the rest.
type Proxy struct {
	Addr  string
	feed  atomic.Int64
	other atomic.Int64
	srv   *http.Server
}

func newProxy(wpURL string, port int) (*Proxy, error) {
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
	}}
	p := &Proxy{Addr: ln.Addr().String()}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/calshim/v1/changes") {
			p.feed.Add(1)
		} else {
			p.other.Add(1)
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Counts returns the feed requests and the other requests forwarded so far.
func (p *Proxy) Counts() (feed, other int64) { return p.feed.Load(), p.other.Load() }

func (p *Proxy) close() { _ = p.srv.Close() }
