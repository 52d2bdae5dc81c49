package dsl

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Accel is an accel argument (docs/accel.md): the scene a kernel traces
// rays against. Its ray is (origin, tmin, dir, tmax, mask): the points
// origin + t·dir for t in [tmin, tmax], skipping instances whose mask shares
// no bit with mask.
type Accel struct {
	k *K
	v *ir.Var
}

func (Accel) paramType() (*ir.Type, error) { return ir.Accel, nil }
func (Accel) bind(k *K, v *ir.Var) any     { return Accel{k: k, v: v} }

func (a Accel) trace(op ir.Op, origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) ir.Expr {
	if a.k == nil {
		return &ir.Poison{Err: fmt.Errorf("%w: use of an unbound accel", ErrDSL)}
	}
	args := []ir.Expr{&ir.Ref{Var: a.v}, origin.Expr(), tmin.Expr(), dir.Expr(), tmax.Expr(), mask.Expr()}
	if !a.k.check(args...) {
		return &ir.Poison{Err: a.k.err}
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		a.k.fail(fmt.Errorf("%s: %w", a.k.fn.Name, err))
		return &ir.Poison{Err: err}
	}
	return a.k.let(&ir.Call{Op: op, Args: args, T: t})
}

// TraceClosest traces the ray once, where it is called, and returns its
// closest hit (Kind HitMiss when there is none).
func (a Accel) TraceClosest(origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) Hit {
	return Hit{a.trace(ir.OpRayClosest, origin, tmin, dir, tmax, mask)}
}

// TraceAny reports whether the ray hits anything (a shadow ray).
func (a Accel) TraceAny(origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) Bool {
	return Bool{a.trace(ir.OpRayAny, origin, tmin, dir, tmax, mask)}
}

// Hit is a ray's closest hit, laid out as kernel.Hit (ir.RayHit): it can be
// stored in a Buf[Hit] that the host reads as []kernel.Hit.
type Hit struct{ e ir.Expr }

func (h Hit) Expr() ir.Expr              { return exprOf(h.e) }
func (Hit) wrap(e ir.Expr) Value         { return Hit{e} }
func (Hit) valueType() (*ir.Type, error) { return ir.RayHit, nil }
func (Hit) paramType() (*ir.Type, error) { return ir.RayHit, nil }
func (Hit) bind(_ *K, v *ir.Var) any     { return Hit{&ir.Ref{Var: v}} }

func (h Hit) field(i int) ir.Expr {
	x := h.Expr()
	if p := poisoned(x); p != nil {
		return p
	}
	return &ir.Member{X: x, Field: i, T: ir.RayHit.Fields()[i].Type}
}

// Instance is the hit instance's user id.
func (h Hit) Instance() U32 { return U32{h.field(0)} }

// Prim is the hit primitive's index in its mesh or procedural.
func (h Hit) Prim() U32 { return U32{h.field(1)} }

// Bary is a triangle hit's barycentrics (u, v): the hit point is
// (1-u-v)·A + u·B + v·C.
func (h Hit) Bary() F32x2 { return F32x2{h.field(2)} }

// T is the distance along the ray.
func (h Hit) T() F32 { return F32{h.field(3)} }

// Kind is HitMiss, HitTriangle or HitProcedural.
func (h Hit) Kind() U32 { return U32{h.field(4)} }

// The kinds of a Hit.
const (
	HitMiss       = ir.HitMiss
	HitTriangle   = ir.HitTriangle
	HitProcedural = ir.HitProcedural
)
