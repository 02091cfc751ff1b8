// Command tone writes one second of a 440 Hz sine, encoded with libopus as
// fifty 20 ms Opus frames (48 kHz, mono), to the file named by its
// argument: each frame is its length (2 bytes, big endian) then its bytes.
// 440 whole periods fit in the second, so the frames loop without a click.
//
// It declares the few libopus functions it calls rather than including
// opus.h, so that the runtime library (libopus0, which Chromium needs too)
// is all it links against.
package main

/*
#cgo LDFLAGS: -l:libopus.so.0
typedef struct OpusEncoder OpusEncoder;
OpusEncoder *opus_encoder_create(int fs, int channels, int application, int *error);
int opus_encode(OpusEncoder *st, const short *pcm, int frame_size, unsigned char *data, int max_data_bytes);
void opus_encoder_destroy(OpusEncoder *st);
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"unsafe"
)

const (
	rate      = 48000
	frameSize = rate / 50 // 20 ms
	hz        = 440
	// applicationAudio is OPUS_APPLICATION_AUDIO.
	applicationAudio = 2049
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tone FILE")
		os.Exit(2)
	}
	var cerr C.int
	enc := C.opus_encoder_create(rate, 1, applicationAudio, &cerr)
	if enc == nil || cerr != 0 {
		fmt.Fprintf(os.Stderr, "opus_encoder_create: error %d\n", int(cerr))
		os.Exit(1)
	}
	defer C.opus_encoder_destroy(enc)
	pcm := make([]C.short, frameSize)
	packet := make([]byte, 1500)
	var out []byte
	for f := 0; f < 50; f++ {
		for i := range pcm {
			n := f*frameSize + i
			pcm[i] = C.short(0.3 * 32767 * math.Sin(2*math.Pi*hz*float64(n)/rate))
		}
		size := C.opus_encode(enc, &pcm[0], frameSize, (*C.uchar)(unsafe.Pointer(&packet[0])), C.int(len(packet)))
		if size < 0 {
			fmt.Fprintf(os.Stderr, "opus_encode: error %d\n", int(size))
			os.Exit(1)
		}
		out = binary.BigEndian.AppendUint16(out, uint16(size))
		out = append(out, packet[:size]...)
	}
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
