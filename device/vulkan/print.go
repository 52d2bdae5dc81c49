package vulkan

// Printing from kernels (kernel ABI v1, codegen's emit_print.go). A command
// list whose dispatches print takes a print ring from its stream: a
// host-visible buffer reached by device address, whose header the host
// sets (cursor 0, dropped 0, capacity) before the list is submitted. Each
// printing dispatch gets the ring's address and a tag, its index among the
// list's printing shaders, in its push constants; kernels append records
// {tag, site, dispatch id, argument words} with one atomic add. When the
// submission completes on the host, before its callbacks, the records are
// decoded in ring order (which is each thread's program order) and handed
// to the device's print handler, then a count of dropped prints; the words
// read are filled with ~0 (a tag no list has, which ends the next decode
// where a dropped record left a gap) and the ring goes back to the stream.

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

const (
	printHeaderWords = 4 // cursor, dropped, capacity, reserved
	printRecordHead  = 5 // tag, site, dispatch id
	// minPrintBytes holds the largest record: a head and ir.MaxPrintArgs
	// arguments of 4 64-bit components.
	minPrintBytes = 4 * (printHeaderWords + printRecordHead + ir.MaxPrintArgs*8)
)

// printRingWords is the data words of a ring of the given bytes
// (device.Options.PrintCapacity; 0 or less: the default).
func printRingWords(bytes int) uint32 {
	if bytes <= 0 {
		bytes = device.DefaultPrintCapacity
	}
	bytes = min(max(bytes, minPrintBytes), 1<<30)
	return uint32(bytes/4 - printHeaderWords)
}

// faultSite and faultWords are the site word and the size of the fault
// records of checked kernels: {tag, faultSite, dispatch id, kind, what,
// index, length} (codegen's emit_print.go).
const (
	faultSite  = ^uint32(0)
	faultWords = 9
	// faultInSlot marks a buffer-index fault's what: the index was of the
	// buffer in a slot of that bindless array argument.
	faultInSlot = 1 << 16
)

// fault describes a fault record of sh; kind holds the fault's kind in its
// low byte and the site of its statement above (codegen's checkFault).
func (sh *shader) fault(kind, what, index, length uint32) *device.KernelFault {
	f := &device.KernelFault{Kernel: sh.kernel, Kind: device.FaultKind(kind & 0xff), Index: uint64(index), Len: uint64(length),
		Pos: sh.sig.SitePos(kind >> 8)}
	switch f.Kind {
	case device.FaultBufferIndex, device.FaultBindlessSlot:
		if arg := int(what &^ faultInSlot); arg < len(sh.sig.Args) {
			f.What = sh.sig.Args[arg].Label(arg)
			if what&faultInSlot != 0 {
				f.What += ", the buffer in its slot"
			}
		}
	case device.FaultSharedIndex, device.FaultArrayIndex:
		if int(what) < len(sh.sig.Places) {
			f.What = sh.sig.Places[what]
		}
	case device.FaultTextureCoord:
		if arg := int(what & 0xffff); arg < len(sh.sig.Args) {
			f.What = sh.sig.Args[arg].Label(arg) + ", coordinate " + string("xyz"[min(what>>16, 2)])
		}
	case device.FaultAssert:
		if int(what) < len(sh.sig.Asserts) {
			f.Msg = sh.sig.Asserts[what]
		}
		f.Index, f.Len = 0, 0
	}
	return f
}

// printSite is a print statement of a shader, ready to format records.
type printSite struct {
	p     *ir.Print
	words int // the record's words, head included
}

// printSites prepares the print sites of a signature.
func printSites(sig device.Signature, label string) ([]printSite, error) {
	var out []printSite
	for i, s := range sig.Prints {
		p, err := s.PrintStatement()
		if err != nil {
			return nil, fmt.Errorf("shader %q: print site %d: %w", label, i, err)
		}
		n := printRecordHead
		for _, a := range p.Args {
			n += ir.PrintWords(a.Type())
		}
		out = append(out, printSite{p, n})
	}
	return out, nil
}

// printRing is a stream's buffer for the records of one list.
type printRing struct {
	buf   *rawBuffer
	words uint32 // data words
}

func (r *printRing) mem() []byte { return r.buf.bytes() }

// takeRing returns a ring with an empty header, reused or made; s.mu held.
func (s *stream) takeRing() (*printRing, error) {
	var r *printRing
	if n := len(s.spareRings); n > 0 {
		r = s.spareRings[n-1]
		s.spareRings[n-1] = nil
		s.spareRings = s.spareRings[:n-1]
	} else {
		if !s.d.caps.BufferDeviceAddress {
			return nil, unsupportedf("a kernel that prints needs buffer device addresses, which %s lacks", s.d.phys.name())
		}
		words := s.d.printWords
		buf, err := s.d.mem.newRawBuffer(4*uint64(printHeaderWords+words), placeStaging)
		if err != nil {
			return nil, fmt.Errorf("print ring of %d bytes: %w", 4*(printHeaderWords+words), err)
		}
		r = &printRing{buf: buf, words: words}
		if r.mem() == nil {
			s.d.mem.destroyRawBuffer(buf)
			return nil, unsupportedf("print ring: no host-visible memory")
		}
		fill(r.mem()[4*printHeaderWords:], 0xff)
	}
	m := r.mem()
	binary.LittleEndian.PutUint32(m[0:], 0)
	binary.LittleEndian.PutUint32(m[4:], 0)
	binary.LittleEndian.PutUint32(m[8:], r.words)
	return r, nil
}

func fill(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// releaseRing gives a submission's ring back to the stream; s.mu held.
func (s *stream) releaseRing(sub *submission) {
	if sub.ring != nil {
		s.spareRings = append(s.spareRings, sub.ring)
		sub.ring = nil
	}
	clear(sub.printers)
	sub.printers = sub.printers[:0]
}

// destroyRings releases the stream's rings (the stream is idle).
func (s *stream) destroyRings() {
	for _, r := range s.spareRings {
		s.d.mem.destroyRawBuffer(r.buf)
	}
	s.spareRings = nil
}

// bindPrintRing writes the list's ring and sh's tag into the push constants
// of a dispatch of sh, a shader that prints.
func (e *encoder) bindPrintRing(sh *shader) error {
	sub := e.sub
	if sub.ring == nil {
		r, err := e.s.takeRing()
		if err != nil {
			return err
		}
		sub.ring = r
	}
	tag := -1
	for i := len(sub.printers) - 1; i >= 0; i-- {
		if sub.printers[i] == sh {
			tag = i
			break
		}
	}
	if tag < 0 {
		tag = len(sub.printers)
		sub.printers = append(sub.printers, sh)
	}
	off := sh.lay.printOffset
	binary.LittleEndian.PutUint64(e.push[off:], sub.ring.buf.addr)
	binary.LittleEndian.PutUint32(e.push[off+8:], uint32(tag))
	return nil
}

// deliverPrints decodes a completed submission's records and hands them to
// the print handler; procMu held. A stream that failed delivers nothing
// (the GPU may not have run the list).
func (s *stream) deliverPrints(sub *submission) {
	r := sub.ring
	m := r.mem()
	word := func(i uint32) uint32 { return binary.LittleEndian.Uint32(m[4*(printHeaderWords+i):]) }
	used := min(binary.LittleEndian.Uint32(m[0:]), r.words)
	dropped := binary.LittleEndian.Uint32(m[4:])
	if s.failed.Load() != nil {
		fill(m[4*printHeaderWords:4*(printHeaderWords+used)], 0xff)
		return
	}
	defer func() {
		if rec := recover(); rec != nil {
			s.d.log.Error("vulkan: the kernel print handler panicked", "stream", uint64(s.h), "panic", fmt.Sprint(rec))
		}
		fill(m[4*printHeaderWords:4*(printHeaderWords+used)], 0xff)
	}()
	var args []uint32
	var fault *device.KernelFault
	faults := 0
	for i := uint32(0); i+printRecordHead <= used; {
		tag, site := word(i), word(i+1)
		if tag >= uint32(len(sub.printers)) {
			break // the gap a dropped record left at the end
		}
		sh := sub.printers[tag]
		if site == faultSite {
			if i+faultWords > used {
				break
			}
			if faults++; fault == nil {
				fault = sh.fault(word(i+5), word(i+6), word(i+7), word(i+8))
				fault.Thread = [3]uint32{word(i + 2), word(i + 3), word(i + 4)}
			}
			i += faultWords
			continue
		}
		if site >= uint32(len(sh.prints)) {
			break
		}
		ps := sh.prints[site]
		if i+uint32(ps.words) > used {
			break
		}
		args = args[:0]
		for j := i + printRecordHead; j < i+uint32(ps.words); j++ {
			args = append(args, word(j))
		}
		s.d.print(device.KernelPrint{Kernel: sh.kernel, Thread: [3]uint32{word(i + 2), word(i + 3), word(i + 4)}, Text: ir.PrintText(ps.p, args)})
		i += uint32(ps.words)
	}
	if fault != nil {
		fault.Count = faults
		var err error = fault
		s.faulted.CompareAndSwap(nil, &err)
	}
	if dropped > 0 {
		names := make([]string, len(sub.printers))
		for i, sh := range sub.printers {
			names[i] = sh.kernel
		}
		s.d.print(device.KernelPrint{Kernel: strings.Join(names, ", "), Dropped: uint64(dropped)})
	}
}
