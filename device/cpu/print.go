package cpu

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Printing: a thread formats its Print at once (ir.PrintText, Go's fmt
// rules) and appends the text to its launch; the stream's goroutine hands
// the launch's texts to the device's print handler once the dispatch has
// finished, so the handler never runs concurrently with itself or inside a
// worker, and each thread's texts keep its program order.

// print compiles a Print statement.
func (c *compiler) print(s *ir.Print) stmtFn {
	args := make([]ex, len(s.Args))
	tmps := make([]int, len(s.Args))
	for i, a := range s.Args {
		args[i] = c.expr(a)
		tmps[i] = c.tmp(args[i].n)
	}
	return func(t *th) flow {
		var words []uint32
		for i, a := range args {
			d := t.r[tmps[i] : tmps[i]+a.n]
			a.v(t, d)
			words = ir.AppendPrintWords(words, s.Args[i].Type(), d)
		}
		l := t.run
		p := device.KernelPrint{Kernel: l.prog.name, Thread: t.id, Text: ir.PrintText(s, words)}
		l.mu.Lock()
		l.prints = append(l.prints, p)
		l.mu.Unlock()
		return next
	}
}

// deliverPrints hands what launch l printed to the print handler; a panic
// in the handler is logged, and the stream goes on.
func (d *Device) deliverPrints(l *launch) {
	l.mu.Lock()
	prints := l.prints
	l.prints = nil
	l.mu.Unlock()
	if len(prints) == 0 {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("cpu: the kernel print handler panicked", "kernel", prints[0].Kernel, "panic", fmt.Sprint(r))
		}
	}()
	for _, p := range prints {
		d.print(p)
	}
}
