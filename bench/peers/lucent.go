package main

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// lucentSide runs the operations through lucent's typed API (device.Open
// with its defaults: no validation wrapper, no validation layer).
type lucentSide struct {
	device string
	d      *device.Device
	s      *device.Stream

	chainBuf, rtBuf *device.Buffer[float32]
	chain           []device.Command
	roundTrip       device.Command
	x, y            *device.Buffer[float32]
	saxpy           device.Command
	tbuf            *device.Buffer[float32]
	up, down        []float32
}

func newLucent() (*lucentSide, error) {
	ctx := context.Background()
	d, err := device.Open(ctx, "vulkan")
	if err != nil {
		return nil, err
	}
	l := &lucentSide{d: d}
	a := d.Capabilities().Adapter
	l.device = fmt.Sprintf("%s (%s)", a.Name, a.Driver)
	if err := l.setup(); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

func (l *lucentSide) setup() error {
	var err error
	if l.s, err = l.d.NewStream(device.StreamCompute); err != nil {
		return err
	}
	inc, err := dsl.Kernel1D(64, func(k *dsl.K, b dsl.Buf[dsl.F32]) {
		j := k.DispatchID().X()
		b.Write(j, b.Read(j).Add(dsl.F(1)))
	})
	if err != nil {
		return err
	}
	kinc, err := device.Compile(l.d, inc)
	if err != nil {
		return err
	}
	saxpy, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		j := k.DispatchID().X()
		y.Write(j, x.Read(j).Mul(a).Add(y.Read(j)))
	})
	if err != nil {
		return err
	}
	ksaxpy, err := device.Compile(l.d, saxpy)
	if err != nil {
		return err
	}
	if l.chainBuf, err = device.NewBuffer[float32](l.d, chainThreads); err != nil {
		return err
	}
	if l.rtBuf, err = device.NewBuffer[float32](l.d, chainThreads); err != nil {
		return err
	}
	for range chainLength {
		l.chain = append(l.chain, kinc.Dispatch([3]uint32{chainThreads}, l.chainBuf))
	}
	l.roundTrip = kinc.Dispatch([3]uint32{chainThreads}, l.rtBuf)
	if l.x, err = device.NewBuffer[float32](l.d, saxpyN); err != nil {
		return err
	}
	if l.y, err = device.NewBuffer[float32](l.d, saxpyN); err != nil {
		return err
	}
	l.saxpy = ksaxpy.Dispatch([3]uint32{saxpyN}, float32(saxpyA), l.x, l.y)
	if l.tbuf, err = device.NewBuffer[float32](l.d, transferN); err != nil {
		return err
	}
	l.up = transferData()
	l.down = make([]float32, transferN)
	return nil
}

func (l *lucentSide) name() string { return "lucent" }

func (l *lucentSide) submit(cmds ...device.Command) error {
	if err := l.s.Submit(cmds...); err != nil {
		return err
	}
	return l.s.Synchronize(context.Background())
}

func (l *lucentSide) op(name string) error {
	switch name {
	case "chain":
		return l.submit(l.chain...)
	case "roundtrip":
		return l.submit(l.roundTrip)
	case "saxpy":
		return l.submit(l.saxpy)
	case "upload":
		return l.submit(l.tbuf.Upload(l.up))
	case "download":
		return l.submit(l.tbuf.Download(l.down))
	}
	return fmt.Errorf("unknown operation %q", name)
}

func (l *lucentSide) check() error {
	got := make([]float32, chainThreads)
	if err := l.submit(l.chainBuf.Fill(0)); err != nil {
		return err
	}
	if err := l.op("chain"); err != nil {
		return err
	}
	if err := l.submit(l.chainBuf.Download(got)); err != nil {
		return err
	}
	if err := checkChain("lucent", got); err != nil {
		return err
	}
	xs, ys := make([]float32, saxpyN), make([]float32, saxpyN)
	for i := range xs {
		xs[i], ys[i] = saxpyInput(i)
	}
	if err := l.submit(l.x.Upload(xs), l.y.Upload(ys)); err != nil {
		return err
	}
	if err := l.op("saxpy"); err != nil {
		return err
	}
	if err := l.submit(l.y.Download(ys)); err != nil {
		return err
	}
	if err := checkSaxpy("lucent", ys); err != nil {
		return err
	}
	if err := l.op("roundtrip"); err != nil {
		return err
	}
	if err := l.op("upload"); err != nil {
		return err
	}
	clear(l.down)
	if err := l.op("download"); err != nil {
		return err
	}
	return checkTransfer("lucent", l.down)
}

func (l *lucentSide) close() {
	if l.s != nil {
		l.s.Close()
	}
	l.d.Close()
}
