// Package tunnel is the frame format of the connections agents open to the
// server for interactive streams (kubectl exec, attach, port-forward). It
// is part of the wire contract server and agents share: the server reads
// what an agent writes and the agent what the server writes, so every
// reader checks what it is given.
//
// A frame is a channel byte, a big-endian uint32 length and that many
// bytes (at most MaxData). The connection's own flow control (TCP) is the
// only window: both sides copy one frame at a time into a bounded buffer,
// so a stuck reader stops the writer instead of growing memory.
package tunnel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Channel says what a frame carries.
type Channel byte

// Channels. Stdin, Resize and CloseStdin go server -> agent; Stdout,
// Stderr and Status agent -> server; Data both ways (port-forward).
const (
	Stdin       Channel = 0 // bytes for the process's stdin
	Stdout      Channel = 1 // the process's stdout (its terminal with a TTY)
	Stderr      Channel = 2 // the process's stderr
	Status      Channel = 3 // the last frame: how the stream ended (Result)
	Resize      Channel = 4 // the terminal's new size (Size)
	CloseStdin  Channel = 5 // the client's stdin ended: close the process's
	Data        Channel = 6 // port-forward bytes
	lastChannel         = Data
)

// MaxData bounds one frame's payload.
const MaxData = 32 << 10

const headerLen = 5

// Result is the Status frame's payload. Error set means the stream could
// not run (Code like HTTP: 400, 403, 404, 500); otherwise ExitCode is the
// process's.
type Result struct {
	ExitCode int    `json:"exitCode"`
	Error    string `json:"error,omitempty"`
	Code     int    `json:"code,omitempty"`
}

// Size is the Resize frame's payload.
type Size struct {
	Width  uint16 `json:"width"`
	Height uint16 `json:"height"`
}

// Writer writes frames; it is safe for concurrent use (one frame at a time).
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf [headerLen + MaxData]byte
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one frame; p must be at most MaxData bytes.
func (fw *Writer) Write(ch Channel, p []byte) error {
	if len(p) > MaxData {
		return fmt.Errorf("tunnel frame of %d bytes: must be at most %d", len(p), MaxData)
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.buf[0] = byte(ch)
	binary.BigEndian.PutUint32(fw.buf[1:headerLen], uint32(len(p)))
	n := copy(fw.buf[headerLen:], p)
	_, err := fw.w.Write(fw.buf[:headerLen+n])
	return err
}

// WriteJSON writes v as one frame on ch.
func (fw *Writer) WriteJSON(ch Channel, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return fw.Write(ch, b)
}

// Copy sends what r gives as frames on ch until r ends; it returns nil at
// io.EOF.
func (fw *Writer) Copy(ch Channel, r io.Reader) error {
	buf := make([]byte, MaxData)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if werr := fw.Write(ch, buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Reader reads frames; the payload it returns is valid until the next Read.
type Reader struct {
	r   io.Reader
	buf [headerLen + MaxData]byte
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// ErrFrame says the peer sent something that is not a frame.
var ErrFrame = errors.New("bad tunnel frame")

// Read returns the next frame; io.EOF at a clean end between frames.
func (fr *Reader) Read() (Channel, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.buf[:headerLen]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("%w: cut short in its header", ErrFrame)
		}
		return 0, nil, err
	}
	ch := Channel(fr.buf[0])
	n := binary.BigEndian.Uint32(fr.buf[1:headerLen])
	switch {
	case ch > lastChannel:
		return 0, nil, fmt.Errorf("%w: channel %d: must be 0-%d", ErrFrame, ch, lastChannel)
	case n > MaxData:
		return 0, nil, fmt.Errorf("%w: %d bytes: must be at most %d", ErrFrame, n, MaxData)
	}
	p := fr.buf[headerLen : headerLen+int(n)]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		return 0, nil, fmt.Errorf("%w: payload cut short: %v", ErrFrame, err)
	}
	return ch, p, nil
}

// DecodeResult reads a Status frame's payload.
func DecodeResult(p []byte) (Result, error) {
	var res Result
	if err := json.Unmarshal(p, &res); err != nil {
		return Result{}, fmt.Errorf("%w: status: %v", ErrFrame, err)
	}
	if res.Error != "" && (res.Code < 400 || res.Code > 599) {
		return Result{}, fmt.Errorf("%w: status code %d: an error needs a code 400-599", ErrFrame, res.Code)
	}
	if len(res.Error) > 1024 {
		res.Error = res.Error[:1024]
	}
	return res, nil
}

// DecodeSize reads a Resize frame's payload.
func DecodeSize(p []byte) (Size, error) {
	var s Size
	if err := json.Unmarshal(p, &s); err != nil {
		return Size{}, fmt.Errorf("%w: resize: %v", ErrFrame, err)
	}
	return s, nil
}
