package main

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
)

// rtviVersion is the RTVI protocol version the stand-in's bot-ready
// announces (Pipecat's).
const rtviVersion = "2.1.0"

// frameDuration is the length of one Opus frame of the tone.
const frameDuration = 20 * time.Millisecond

// offerRequest is SmallWebRTC's POST /api/offer body.
type offerRequest struct {
	SDP       string `json:"sdp"`
	Type      string `json:"type"`
	PCID      string `json:"pc_id"`
	RestartPC bool   `json:"restart_pc"`
}

// patchRequest is SmallWebRTC's PATCH /api/offer body.
type patchRequest struct {
	PCID       string `json:"pc_id"`
	Candidates []struct {
		Candidate     string  `json:"candidate"`
		SDPMid        *string `json:"sdp_mid"`
		SDPMLineIndex *uint16 `json:"sdp_mline_index"`
	} `json:"candidates"`
}

// peer is a WebRTC connection the stand-in answered.
type peer struct {
	id    string
	pc    *webrtc.PeerConnection
	rec   *session
	track *webrtc.TrackLocalStaticSample
	// added tells whether track was added (at the first answer).
	added bool
	// done is closed when the peer left.
	done chan struct{}
	left sync.Once
	// mu orders the answers to the same peer (a renegotiation).
	mu sync.Mutex
	// sendMu orders the messages sent on the data channel.
	sendMu sync.Mutex
	msgID  int
}

// newWebRTCAPI returns the API the stand-in's connections are made with:
// UDP over IPv4, host candidates only (the agents' network; no STUN), no
// mDNS.
func newWebRTCAPI() *webrtc.API {
	var se webrtc.SettingEngine
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		panic(err) // the defaults register
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(se))
}

// splitFrames cuts the tone file into its frames.
func splitFrames(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, errors.New("a frame's length is cut")
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, errors.New("a frame is cut")
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out, nil
}

func newPCID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	return "standin-" + hex.EncodeToString(b)
}

// webrtcOffer answers an offer with a WebRTC connection: a new one, or
// the one pc_id names (a renegotiation) unless restart_pc.
func (s *server) webrtcOffer(w http.ResponseWriter, r *http.Request, body json.RawMessage, o offerRequest) {
	s.mu.Lock()
	p := s.peers[o.PCID]
	s.mu.Unlock()
	if p != nil && o.RestartPC {
		// The caller starts over: the session goes on with the new one.
		s.leave(p, standinapi.EndedRestarted)
		p = nil
	}
	if p == nil {
		var err error
		if p, err = s.newPeer(r.Header, body); err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"detail": err.Error()})
			return
		}
	}
	sdp, err := p.answer(o.SDP)
	if err != nil {
		fmt.Printf("offer %s: %v\n", p.id, err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"detail": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"sdp": sdp, "type": "answer", "pc_id": p.id})
}

func (s *server) newPeer(h http.Header, body json.RawMessage) (*peer, error) {
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	track, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "audio", "standin-bot")
	if err != nil {
		_ = pc.Close()
		return nil, err
	}
	p := &peer{id: newPCID(), pc: pc, track: track, done: make(chan struct{})}
	p.rec = s.record(standinapi.KindOffer, h, body)
	s.mu.Lock()
	p.rec.PCID = p.id
	s.peers[p.id] = p
	s.mu.Unlock()
	fmt.Printf("session %s: peer %s offered\n", p.rec.ID, p.id)

	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			s.mu.Lock()
			first := !p.rec.Connected
			p.rec.Connected = true
			s.mu.Unlock()
			if first {
				fmt.Printf("session %s: peer %s connected\n", p.rec.ID, p.id)
				go s.play(p)
			}
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			go s.leave(p, standinapi.EndedPeerLeft)
		}
	})
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		if tr.Kind() != webrtc.RTPCodecTypeAudio {
			return
		}
		for {
			if _, _, err := tr.ReadRTP(); err != nil {
				return
			}
			s.mu.Lock()
			p.rec.AudioReceived++
			s.mu.Unlock()
		}
	})
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnMessage(func(m webrtc.DataChannelMessage) { s.message(p, dc, m.Data) })
		dc.OnClose(func() { go s.leave(p, standinapi.EndedPeerLeft) })
	})
	return p, nil
}

// answer takes an offer and returns the answer, its candidates gathered.
func (p *peer) answer(sdp string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: sdp}); err != nil {
		return "", err
	}
	if !p.added {
		sender, err := p.pc.AddTrack(p.track)
		if err != nil {
			return "", err
		}
		p.added = true
		go func() {
			buf := make([]byte, 1500)
			for {
				if _, _, err := sender.Read(buf); err != nil {
					return
				}
			}
		}()
	}
	ans, err := p.pc.CreateAnswer(nil)
	if err != nil {
		return "", err
	}
	gathered := webrtc.GatheringCompletePromise(p.pc)
	if err := p.pc.SetLocalDescription(ans); err != nil {
		return "", err
	}
	select {
	case <-gathered:
	case <-time.After(10 * time.Second):
		return "", errors.New("gathering the candidates took over 10s")
	}
	return p.pc.LocalDescription().SDP, nil
}

// patch adds a peer's trickled candidates.
func (s *server) patch(pr patchRequest) bool {
	s.mu.Lock()
	p := s.peers[pr.PCID]
	s.mu.Unlock()
	if p == nil {
		return false
	}
	for _, c := range pr.Candidates {
		if c.Candidate == "" {
			continue // end of candidates
		}
		if err := p.pc.AddICECandidate(webrtc.ICECandidateInit{Candidate: c.Candidate, SDPMid: c.SDPMid, SDPMLineIndex: c.SDPMLineIndex}); err != nil {
			// A name the stand-in cannot resolve (mDNS): the peer's
			// checks still reach it.
			fmt.Printf("peer %s: candidate skipped: %v\n", p.id, err)
		}
	}
	return true
}

// play sends the tone in a loop until the peer leaves.
func (s *server) play(p *peer) {
	if len(s.tone) == 0 {
		fmt.Printf("peer %s: no tone to play\n", p.id)
		return
	}
	t := time.NewTicker(frameDuration)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		if err := p.track.WriteSample(media.Sample{Data: s.tone[i%len(s.tone)], Duration: frameDuration}); err != nil {
			return
		}
		s.mu.Lock()
		p.rec.AudioSent++
		s.mu.Unlock()
	}
}

// rtviMessage is an RTVI message, both ways.
type rtviMessage struct {
	Label string          `json:"label"`
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// message records what the peer sent on a data channel and answers the
// RTVI messages a bot answers.
func (s *server) message(p *peer, dc *webrtc.DataChannel, data []byte) {
	raw := json.RawMessage(append([]byte(nil), data...))
	if !json.Valid(raw) {
		raw, _ = json.Marshal(string(data)) // a string always marshals
	}
	s.mu.Lock()
	p.rec.Messages = append(p.rec.Messages, raw)
	s.mu.Unlock()
	var m rtviMessage
	if json.Unmarshal(data, &m) != nil || m.Label != "rtvi-ai" {
		return
	}
	switch m.Type {
	case "client-ready":
		p.send(dc, "bot-ready", m.ID, map[string]any{"version": rtviVersion, "about": map[string]string{"library": "botkit-standin"}})
		p.send(dc, "user-transcription", "", map[string]any{"text": standinapi.UserLine, "user_id": "", "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "final": true})
		p.send(dc, "bot-output", "", map[string]any{"text": standinapi.BotLine, "aggregated_by": "sentence", "spoken_status": "new", "will_be_spoken": true})
		p.send(dc, "bot-transcription", "", map[string]any{"text": standinapi.BotLine})
		p.send(dc, "metrics", "", map[string]any{"ttfb": []map[string]any{{"processor": standinapi.TTFBProcessor, "model": "standin", "value": 0.042}}})
	case "send-text":
		var d struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(m.Data, &d) // no content: an empty reply
		p.send(dc, "bot-output", "", map[string]any{"text": standinapi.TextReplyPrefix + d.Content, "aggregated_by": "sentence", "spoken_status": "new", "will_be_spoken": false})
	}
}

// send sends an RTVI message (id "": a new one).
func (p *peer) send(dc *webrtc.DataChannel, typ, id string, data any) {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	if id == "" {
		p.msgID++
		id = fmt.Sprintf("standin-%d", p.msgID)
	}
	d, _ := json.Marshal(data) // maps of plain values
	b, _ := json.Marshal(rtviMessage{Label: "rtvi-ai", Type: typ, ID: id, Data: d})
	if err := dc.SendText(string(b)); err != nil {
		fmt.Printf("peer %s: sending %s: %v\n", p.id, typ, err)
	}
}

// leave closes the peer's connection and ends its record, the first time
// it is called, with why; EndedPeerLeft also ends the /bot session of the
// same id: a bot's pipeline ends when its caller leaves.
func (s *server) leave(p *peer, why string) {
	p.left.Do(func() {
		close(p.done)
		_ = p.pc.Close() // closed already, maybe
		s.mu.Lock()
		delete(s.peers, p.id)
		for _, sess := range s.sessions {
			if why == standinapi.EndedPeerLeft && sess.Kind == standinapi.KindBot && sess.State == standinapi.StateActive && sess.ID != "" && sess.ID == p.rec.ID {
				select {
				case sess.end <- standinapi.EndedPeerLeft:
				default: // told already
				}
			}
		}
		s.mu.Unlock()
		s.ended(p.rec, why)
	})
}

// hasMedia tells a real offer from a placeholder: an SDP with a media
// section.
func hasMedia(sdp string) bool {
	return strings.Contains(sdp, "\nm=")
}

// cors lets any page call h, as the Pipecat development runner does.
func cors(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Headers", "*")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, PATCH, OPTIONS")
		h(w, r)
	}
}

// runnerStart is the development runner's /start: a session id for the
// offer path, nothing held.
func (s *server) runnerStart(w http.ResponseWriter, r *http.Request) {
	if _, ok := readObject(w, r); !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"sessionId": "direct-" + newPCID()})
}

// runnerOffer is the development runner's offer path: /api/offer for the
// session of the path.
func (s *server) runnerOffer(w http.ResponseWriter, r *http.Request) {
	r.Header.Set("X-Daily-Session-Id", r.PathValue("id"))
	s.offer(w, r)
}
