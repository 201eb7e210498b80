package adapter

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// notifyPath is where the calshim plugin's push notices arrive, outside the v1 namespaces. It is
// served only when Options.NotifySecret is set; otherwise the path is the v1 dispatcher's as before.
const notifyPath = "/calshim/notify"

// notify answers a push notice: with the shared secret as bearer token it asks every catalog for a
// poll now (catalog.Notify coalesces bursts) and answers 202 at once, before the poll; else 401.
// The notice carries nothing calshim trusts: the poll reads what changed from the feed as always.
func (s *Server) notify(gc *gin.Context) {
	token, ok := strings.CutPrefix(gc.GetHeader("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(s.opt.NotifySecret)) != 1 {
		e := errNotifyUnauthorized
		gc.JSON(e.Status, gin.H{"code": e.Code, "message": e.Message, "data": gin.H{"status": e.Status}})
		return
	}

	s.cat.Notify()
	for _, c := range s.opt.Catalogs {
		c.Notify()
	}
	gc.Status(http.StatusAccepted)
}
