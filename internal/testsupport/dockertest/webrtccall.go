package dockertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// Call is a SmallWebRTC caller, as a web client is one: it sends its offer
// (an audio track both ways and a data channel, its candidates gathered) to
// an /api/offer URL, then speaks RTVI on the data channel. It is how Go
// tests call the stand-in, straight or through the platform.
type Call struct {
	PC   *webrtc.PeerConnection
	PCID string

	dc    *webrtc.DataChannel
	open  chan struct{}
	mu    sync.Mutex
	msgs  []map[string]any
	audio int
	// arrived is signalled at every message.
	arrived chan struct{}
}

// Dial offers a connection to offerURL (POST, with header, sent by hc;
// nil: a client of its own) and returns once the answer is taken.
func Dial(ctx context.Context, hc *http.Client, offerURL string, header http.Header) (*Call, error) {
	if hc == nil {
		hc = standinClient
	}
	var se webrtc.SettingEngine
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		return nil, err
	}
	pc, err := webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	c := &Call{PC: pc, open: make(chan struct{}), arrived: make(chan struct{}, 1)}
	fail := func(err error) (*Call, error) { _ = pc.Close(); return nil, err }
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
		return fail(err)
	}
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			pkt, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			if len(pkt.Payload) > 0 {
				c.mu.Lock()
				c.audio++
				c.mu.Unlock()
			}
		}
	})
	if c.dc, err = pc.CreateDataChannel("chat", nil); err != nil {
		return fail(err)
	}
	c.dc.OnOpen(func() { close(c.open) })
	c.dc.OnMessage(func(msg webrtc.DataChannelMessage) {
		var v map[string]any
		if json.Unmarshal(msg.Data, &v) != nil {
			return
		}
		c.mu.Lock()
		c.msgs = append(c.msgs, v)
		c.mu.Unlock()
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	body, err := json.Marshal(map[string]string{"sdp": pc.LocalDescription().SDP, "type": "offer"})
	if err != nil {
		return fail(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, offerURL, bytes.NewReader(body))
	if err != nil {
		return fail(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("POST %s: %d %s", offerURL, resp.StatusCode, b))
	}
	var ans struct {
		SDP  string `json:"sdp"`
		Type string `json:"type"`
		PCID string `json:"pc_id"`
	}
	if err := json.Unmarshal(b, &ans); err != nil || ans.Type != "answer" || ans.PCID == "" {
		return fail(fmt.Errorf("POST %s: not an answer: %s", offerURL, b))
	}
	c.PCID = ans.PCID
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: ans.SDP}); err != nil {
		return fail(err)
	}
	return c, nil
}

// Send sends an RTVI message once the data channel is open.
func (c *Call) Send(ctx context.Context, typ, id string, data any) error {
	select {
	case <-c.open:
	case <-ctx.Done():
		return fmt.Errorf("the data channel did not open: %w", ctx.Err())
	}
	msg := map[string]any{"label": "rtvi-ai", "type": typ, "id": id}
	if data != nil {
		msg["data"] = data
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.dc.SendText(string(b))
}

// Wait returns the first RTVI message received of type typ that ok
// accepts (nil: any), waiting for it.
func (c *Call) Wait(ctx context.Context, typ string, ok func(map[string]any) bool) (map[string]any, error) {
	for {
		c.mu.Lock()
		for _, m := range c.msgs {
			if m["type"] == typ && (ok == nil || ok(m)) {
				c.mu.Unlock()
				return m, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.arrived:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("no %s message: %w", typ, ctx.Err())
		}
	}
}

// AudioPackets returns how many audio packets with a payload arrived.
func (c *Call) AudioPackets() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.audio
}

// Close hangs up: the data channel, then the connection.
func (c *Call) Close() error {
	_ = c.dc.Close() // the connection's close follows
	return c.PC.Close()
}
