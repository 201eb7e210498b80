package test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"
)

// A multipart/form-data body (as browsers' FormData sends) is read like a form, as PHP fills $_POST.
func TestMultipartCreate(t *testing.T) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range map[string]string{"title": "Multipart Event", "start_date": "2031-06-01 10:00:00",
		"end_date": "2031-06-01 11:00:00", "categories[]": "music", "cost": "12"} {
		_ = w.WriteField(k, v)
	}
	w.Close()
	created := call(t, http.MethodPost, "/wp-json/cal/events/v1/events", as("admin"),
		withBody(w.FormDataContentType(), b.Bytes()))
	if created.status != http.StatusCreated || str(at(created.body, "title")) != "Multipart Event" ||
		str(at(created.body, "categories", 0, "slug")) != "music" || str(at(created.body, "cost")) != "$12" {
		t.Fatalf("multipart create: %d %s", created.status, created.raw)
	}
	wantStatus(t, send(t, "admin", http.MethodDelete, "/events/"+str(at(created.body, "id")), nil), http.StatusOK)
}
