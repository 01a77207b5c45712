package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"

	"github.com/bramble-edge/bramble/durable"
	"github.com/bramble-edge/bramble/mqtt"
)

// journal is the local store's append-only log of applied events: one
// line per event, "<crc32c of the JSON, 8 hex digits> <JSON>\n", where the
// JSON is {"rev":R,"changes":[...]}. An append of any number of events is
// one write and one fsync, where writing each object's file atomically
// costs two fsyncs per object and two for the revision. The store folds
// the journal into its object files now and then and empties it.
//
// A power cut can leave a torn last line (or a few, written after the
// last fsync); replay stops at the first line that does not check out and
// cuts the file there. Everything before it was acknowledged only after
// its fsync, so what is lost was never acknowledged.
type journal struct {
	f    *os.File
	size int64
	sync func(*os.File) error // (*os.File).Sync; tests count the calls
}

// journalRecord is one applied event.
type journalRecord struct {
	Rev     int64         `json:"rev"`
	Changes []mqtt.Change `json:"changes"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// openJournal opens (creating, durably) path and returns the records it
// holds, cutting off a torn tail.
func openJournal(path string, dir string) (*journal, []journalRecord, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := durable.SyncDir(dir); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("journal: %w", err)
		}
	}
	recs, good, err := readJournal(f)
	if err == nil {
		err = cutTail(f, good)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	return &journal{f: f, size: good, sync: (*os.File).Sync}, recs, nil
}

// readJournal decodes records from the start of f up to the first one
// that does not check out, and returns the length they take.
func readJournal(f *os.File) ([]journalRecord, int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	var recs []journalRecord
	var good int64
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return recs, good, nil // end of file, or a last line without its newline
		}
		rec, ok := decodeRecord(line)
		if !ok {
			return recs, good, nil
		}
		recs = append(recs, rec)
		good += int64(len(line))
	}
}

func decodeRecord(line []byte) (journalRecord, bool) {
	var rec journalRecord
	sum, body, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
	if !ok || len(sum) != 8 {
		return rec, false
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || crc32.Checksum(body, crcTable) != uint32(want) {
		return rec, false
	}
	return rec, json.Unmarshal(body, &rec) == nil && rec.Rev > 0
}

// cutTail drops what follows the last good record.
func cutTail(f *os.File, good int64) error {
	st, err := f.Stat()
	if err != nil || st.Size() == good {
		return err
	}
	if err := f.Truncate(good); err != nil {
		return err
	}
	return f.Sync()
}

// encodeRecords renders records as journal lines.
func encodeRecords(recs []journalRecord) ([]byte, error) {
	var buf bytes.Buffer
	for _, rec := range recs {
		body, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%08x ", crc32.Checksum(body, crcTable))
		buf.Write(body)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// append writes data (whole records) and fsyncs once. On failure the file
// is cut back to where it was, so a later append never follows a torn
// record.
func (j *journal) append(data []byte) error {
	_, err := j.f.Write(data)
	if err == nil {
		err = j.sync(j.f)
	}
	if err != nil {
		if terr := j.f.Truncate(j.size); terr != nil {
			return fmt.Errorf("journal: %w (and cutting it back: %v)", err, terr)
		}
		return fmt.Errorf("journal: %w", err)
	}
	j.size += int64(len(data))
	return nil
}

// reset empties the journal durably.
func (j *journal) reset() error {
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.sync(j.f); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.size = 0
	return nil
}

func (j *journal) close() error { return j.f.Close() }
