// Command staticgin is the ceiling `make bench` compares calshim with: a gin server that answers
// every GET with the same response from memory, with no routing, parsing, logging or metrics. The
// body comes from -body (e.g. calshim's warm GET /events answer); -headers, optional, is the header
// block calshim sent with it (`curl -D`), sent again on every answer but Date, which net/http adds,
// so that the ceiling writes the same bytes calshim does (its 15 headers cost net/http about as much
// CPU per request as the body's write). Without -headers only Content-Type is sent.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"log"
	"net/http"
	"net/textproto"
	"os"

	"github.com/gin-gonic/gin"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18110", "address to listen on")
	file := flag.String("body", "", "file whose bytes every answer carries")
	headerFile := flag.String("headers", "", "file with the status line and headers to send (optional)")
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}

	fixed := http.Header{"Content-Type": {"application/json; charset=UTF-8"}}
	if *headerFile != "" {
		if fixed, err = readHeaders(*headerFile); err != nil {
			log.Fatal(err)
		}
	}

	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.NoRoute(func(c *gin.Context) {
		h := c.Writer.Header()
		for k, v := range fixed {
			h[k] = v
		}
		c.Status(http.StatusOK)
		_, _ = c.Writer.Write(body)
	})
	log.Fatal(http.ListenAndServe(*listen, g))
}

// readHeaders parses a header block as curl -D writes it (status line first), without Date.
func readHeaders(name string) (http.Header, error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}

	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	if _, err := r.ReadLine(); err != nil { // the status line
		return nil, err
	}

	h, err := r.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}

	delete(h, "Date")
	return http.Header(h), nil
}
