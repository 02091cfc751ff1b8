package httpapi

import (
	"net/http"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// The handlers of an organization's public keys.

func (a *api) handleCreatePublicKey(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req resources.PublicKeyRequest
	if err := decodeBody(w, r, &req, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	k, err := a.svc.CreatePublicKey(r.Context(), p, req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // the key is in this answer only
	writeJSON(w, http.StatusCreated, k)
}

func (a *api) handlePublicKeys(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	list, err := a.svc.PublicKeys(r.Context(), p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *api) handleDeletePublicKey(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	k, err := a.svc.DeletePublicKey(r.Context(), p, r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, k)
}
