package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Naming: the Vk/vk/VK_ prefixes are dropped and the rest is kept as the
// registry spells it: VkInstanceCreateInfo -> InstanceCreateInfo,
// vkCreateInstance -> CreateInstance, VK_STRUCTURE_TYPE_APPLICATION_INFO ->
// STRUCTURE_TYPE_APPLICATION_INFO, PFN_vkAllocationFunction ->
// PFN_AllocationFunction. Struct members get an upper-case first letter
// (sType -> SType).

func goTypeName(c string) string {
	switch {
	case strings.HasPrefix(c, "PFN_vk"):
		return "PFN_" + c[len("PFN_vk"):]
	case strings.HasPrefix(c, "Vk"):
		return c[2:]
	}
	return c
}

func goConstName(c string) string { return strings.TrimPrefix(c, "VK_") }
func goFuncName(c string) string  { return strings.TrimPrefix(c, "vk") }
func goFieldName(c string) string { return strings.ToUpper(c[:1]) + c[1:] }

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
	"unsafe": true, "purego": true, "tbl": true, "fnptr": true, "r": true,
}

func goParamName(c string) string {
	if goKeywords[c] {
		return c + "_"
	}
	return c
}

// valueOK reports whether a type can be used by value in Go (it and every
// type it embeds by value are known). Types from headers the registry does
// not define (the StdVideo codec types) are not.
func (m *model) valueOK(name string) bool {
	switch m.okMemo[name] {
	case 1:
		return true
	case 2, 3:
		return false
	}
	m.okMemo[name] = 3 // in progress: a by-value cycle is impossible in C
	ok := m.computeValueOK(name)
	if ok {
		m.okMemo[name] = 1
	} else {
		m.okMemo[name] = 2
	}
	return ok
}

func (m *model) computeValueOK(name string) bool {
	if _, ok := cScalars[name]; ok {
		return true
	}
	n, ti := m.target(name)
	if ti == nil {
		return false
	}
	switch ti.Kind {
	case kScalar, kNamed, kEnum, kBitmask, kFlagBits, kHandle, kNDHandle, kFuncPtr:
		return true
	case kStruct, kUnion:
		for _, f := range ti.Fields {
			if f.Ptr == 0 && !m.valueOK(f.Type) {
				return false
			}
		}
		_ = n
		return true
	}
	return false
}

// goScalarOf is the Go type of a value of C type name (after alias resolution).
func (m *model) goValueType(name string) string {
	if s, ok := cScalars[name]; ok {
		return s
	}
	_, ti := m.target(name)
	if ti != nil && ti.Kind == kScalar {
		return ti.Under
	}
	return goTypeName(name)
}

// goType is the Go type of a declaration; ok is false when the declaration
// needs a type Go cannot represent by value.
func (m *model) goType(d decl) (string, bool) {
	var base string
	ptr := d.Ptr
	switch {
	case ptr == 0:
		if d.Type == "void" || !m.valueOK(d.Type) {
			return "", false
		}
		base = m.goValueType(d.Type)
	case d.Type == "void":
		base, ptr = "unsafe.Pointer", ptr-1
	default:
		_, ti := m.target(d.Type)
		_, scalar := cScalars[d.Type]
		switch {
		case scalar:
			base = cScalars[d.Type]
		case ti == nil || ti.Kind == kUnknown || !m.valueOK(d.Type) && ti.Kind != kOpaque:
			base, ptr = "unsafe.Pointer", ptr-1
		case ti.Kind == kOpaque:
			base, ptr = "uintptr", ptr-1
		default:
			base = m.goValueType(d.Type)
		}
	}
	s := strings.Repeat("*", ptr) + base
	for i := len(d.Dims) - 1; i >= 0; i-- {
		s = "[" + m.dimExpr(d.Dims[i]) + "]" + s
	}
	return s, true
}

func (m *model) dimExpr(d string) string {
	if _, err := strconv.Atoi(d); err == nil {
		return d
	}
	return goConstName(d)
}

func (m *model) dimValue(d string) int {
	if n, err := strconv.Atoi(d); err == nil {
		return n
	}
	for _, c := range m.consts {
		if c.CName == d {
			if n, err := strconv.ParseInt(c.Expr, 0, 64); err == nil {
				return int(n)
			}
			return m.dimValue("VK_" + c.Expr)
		}
	}
	panic(fmt.Sprintf("unknown array dimension %s", d))
}

// layout is the C size and alignment of a declaration on a 64-bit target.
func (m *model) layout(d decl) (size, align int) {
	if d.Ptr > 0 {
		size, align = 8, 8
	} else {
		size, align = m.typeLayout(d.Type)
	}
	for _, dim := range d.Dims {
		size *= m.dimValue(dim)
	}
	return size, align
}

var goScalarSize = map[string]int{
	"byte": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
	"float32": 4, "int64": 8, "uint64": 8, "float64": 8, "uintptr": 8,
}

func (m *model) typeLayout(name string) (int, int) {
	if s, ok := cScalars[name]; ok {
		n := goScalarSize[s]
		return n, n
	}
	if l, ok := m.layoutMemo[name]; ok {
		return l[0], l[1]
	}
	_, ti := m.target(name)
	var size, align int
	switch ti.Kind {
	case kScalar, kNamed, kBitmask:
		size = goScalarSize[ti.Under]
		align = size
	case kFlagBits:
		return m.typeLayout(ti.Bits)
	case kEnum:
		size, align = 4, 4
	case kHandle, kNDHandle, kFuncPtr:
		size, align = 8, 8
	case kStruct:
		for _, u := range m.units(ti) {
			s, a := u.size, u.align
			if a > align {
				align = a
			}
			size = (size + a - 1) / a * a
			size += s
		}
		size = (size + align - 1) / align * align
	case kUnion:
		for _, f := range ti.Fields {
			s, a := m.layout(f)
			if s > size {
				size = s
			}
			if a > align {
				align = a
			}
		}
		size = (size + align - 1) / align * align
	default:
		panic("no layout for " + name)
	}
	m.layoutMemo[name] = [2]int{size, align}
	return size, align
}

// unit is one storage unit of a struct: a member, or a run of bitfields
// sharing one 32-bit word.
type unit struct {
	fields      []decl
	size, align int
}

func (m *model) units(ti *typeInfo) []unit {
	var us []unit
	bits := 0
	for _, f := range ti.Fields {
		if f.Bits > 0 {
			if len(us) > 0 && len(us[len(us)-1].fields) > 0 && us[len(us)-1].fields[0].Bits > 0 && bits+f.Bits <= 32 {
				us[len(us)-1].fields = append(us[len(us)-1].fields, f)
				bits += f.Bits
				continue
			}
			us = append(us, unit{fields: []decl{f}, size: 4, align: 4})
			bits = f.Bits
			continue
		}
		s, a := m.layout(f)
		us = append(us, unit{fields: []decl{f}, size: s, align: a})
	}
	return us
}
