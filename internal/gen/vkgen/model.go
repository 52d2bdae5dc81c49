package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// kind classifies a C type name of the registry.
type kind int

const (
	kUnknown  kind = iota
	kScalar        // C scalar: uint32_t, float, char, ...
	kNamed         // named Go type over a scalar (VkBool32, VkDeviceSize, MTLDevice_id, ...)
	kOpaque        // only ever used behind a pointer (Display, ANativeWindow, ...)
	kEnum          // C enum (int32)
	kBitmask       // VkFooFlags
	kFlagBits      // VkFooFlagBits: alias of the matching VkFooFlags
	kHandle        // dispatchable handle
	kNDHandle      // non-dispatchable handle
	kStruct        // struct
	kUnion         // union
	kFuncPtr       // PFN_vk...
	kAlias         // alias of another registry type
)

// cScalars maps C scalar types to Go types.
var cScalars = map[string]string{
	"char": "byte", "float": "float32", "double": "float64",
	"int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
	"int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64",
	"size_t": "uintptr", "int": "int32",
}

// platformTypes maps the window-system and OS types the registry names (but
// does not define) to Go types; "" marks a type used only behind a pointer,
// which becomes uintptr. cDefs is the C fallback used by the layout program
// when the platform header is absent.
var platformTypes = map[string]struct{ Go, C string }{
	"Display":             {"", "typedef struct _XDisplay Display;"},
	"VisualID":            {"uintptr", "typedef unsigned long VisualID;"},
	"Window":              {"uintptr", "typedef unsigned long Window;"},
	"RROutput":            {"uintptr", "typedef unsigned long RROutput;"},
	"wl_display":          {"", "struct wl_display;"},
	"wl_surface":          {"", "struct wl_surface;"},
	"HINSTANCE":           {"uintptr", "typedef void* HINSTANCE;"},
	"HWND":                {"uintptr", "typedef void* HWND;"},
	"HMONITOR":            {"uintptr", "typedef void* HMONITOR;"},
	"HANDLE":              {"uintptr", "typedef void* HANDLE;"},
	"SECURITY_ATTRIBUTES": {"", "typedef struct _SECURITY_ATTRIBUTES SECURITY_ATTRIBUTES;"},
	"DWORD":               {"uint32", "typedef uint32_t DWORD;"},
	"LPCWSTR":             {"uintptr", "typedef const uint16_t* LPCWSTR;"},
	"xcb_connection_t":    {"", "typedef struct xcb_connection_t xcb_connection_t;"},
	"xcb_visualid_t":      {"uint32", "typedef uint32_t xcb_visualid_t;"},
	"xcb_window_t":        {"uint32", "typedef uint32_t xcb_window_t;"},
	"IDirectFB":           {"", "typedef struct _IDirectFB IDirectFB;"},
	"IDirectFBSurface":    {"", "typedef struct _IDirectFBSurface IDirectFBSurface;"},
	"zx_handle_t":         {"uint32", "typedef uint32_t zx_handle_t;"},
	"GgpStreamDescriptor": {"uint32", "typedef uint32_t GgpStreamDescriptor;"},
	"GgpFrameToken":       {"uint32", "typedef uint32_t GgpFrameToken;"},
	"_screen_context":     {"", "struct _screen_context;"},
	"_screen_window":      {"", "struct _screen_window;"},
}

type enumVal struct {
	CName string
	Value int64 // the bit pattern; 64-bit flags are stored as their uint64 bits
	Alias string
	Bit   bool // a single-bit flag (bitpos)
}

type enumGroup struct {
	CName   string
	Bitmask bool
	Width   int
	Vals    []*enumVal
	byName  map[string]*enumVal
}

func (g *enumGroup) add(v *enumVal) {
	if _, dup := g.byName[v.CName]; dup {
		return
	}
	g.byName[v.CName] = v
	g.Vals = append(g.Vals, v)
}

type constant struct {
	CName string
	Expr  string // Go constant expression
	Doc   string
}

type typeInfo struct {
	x      *xType
	Kind   kind
	Under  string // kNamed/kBitmask: Go underlying type; kAlias: target C name
	Bits   string // kBitmask: the FlagBits enum; kFlagBits: the Flags type
	Fields []decl // kStruct/kUnion
	SType  string // struct sType value, if fixed
	Plat   string
}

type command struct {
	CName   string
	Ret     string // C return type
	Params  []decl
	Aliases []string
	Level   int // levelGlobal, levelInstance, levelDevice
	Plat    string
}

const (
	levelGlobal = iota
	levelInstance
	levelDevice
)

type model struct {
	types      map[string]*typeInfo
	typeOrder  []string
	groups     map[string]*enumGroup
	consts     []*constant
	constSeen  map[string]bool
	reqTypes   map[string]bool
	reqCmds    map[string]bool
	cmds       map[string]*xCommand
	cmdOrder   []string
	commands   []*command
	header     int
	versions   []*constant
	okMemo     map[string]int
	layoutMemo map[string][2]int
	platOf     map[string]string
	visited    map[string]bool
	skipped    []string
	arities    map[int]bool
}

var reHeaderVersion = regexp.MustCompile(`VK_HEADER_VERSION</name>\s+(\d+)`)
var reAPIVersion = regexp.MustCompile(`<name>(VK_API_VERSION_\d+_\d+)</name>.*?\((\d+),\s*(\d+),\s*(\d+),\s*(\d+)\)`)

func buildModel(r *xRegistry, raw []byte) (*model, error) {
	m := &model{
		types: map[string]*typeInfo{}, groups: map[string]*enumGroup{}, constSeen: map[string]bool{},
		reqTypes: map[string]bool{}, reqCmds: map[string]bool{}, cmds: map[string]*xCommand{},
		okMemo: map[string]int{}, layoutMemo: map[string][2]int{}, platOf: map[string]string{},
		visited: map[string]bool{}, arities: map[int]bool{},
	}
	hv := reHeaderVersion.FindSubmatch(raw)
	if hv == nil {
		return nil, fmt.Errorf("VK_HEADER_VERSION not found in registry")
	}
	m.header, _ = strconv.Atoi(string(hv[1]))
	for _, x := range r.Types {
		if x.Category != "define" || !strings.Contains(x.Inner, "VK_API_VERSION_") {
			continue
		}
		if v := reAPIVersion.FindStringSubmatch(x.Inner); v != nil {
			a, _ := strconv.Atoi(v[2])
			b, _ := strconv.Atoi(v[3])
			c, _ := strconv.Atoi(v[4])
			d, _ := strconv.Atoi(v[5])
			m.versions = append(m.versions, &constant{CName: v[1], Expr: fmt.Sprintf("0x%X", a<<29|b<<22|c<<12|d)})
		}
	}
	if err := m.indexTypes(r); err != nil {
		return nil, err
	}
	if err := m.indexEnums(r); err != nil {
		return nil, err
	}
	for i := range r.Commands {
		c := &r.Commands[i]
		if !forVulkan(c.API) {
			continue
		}
		name := c.Name
		if name == "" {
			var err error
			d, err := parseDecl(c.Proto.Inner)
			if err != nil {
				return nil, err
			}
			name = d.Name
		}
		if _, dup := m.cmds[name]; !dup {
			m.cmdOrder = append(m.cmdOrder, name)
		}
		m.cmds[name] = c
	}
	var reqCmdOrder []string
	walk := func(reqs []xRequire, extNumber, plat string) error {
		for _, rq := range reqs {
			if !forVulkan(rq.API) {
				continue
			}
			for _, t := range rq.Types {
				m.reqTypes[t.Name] = true
				if plat != "" && m.platOf[t.Name] == "" {
					m.platOf[t.Name] = plat
				}
			}
			for _, c := range rq.Commands {
				if !m.reqCmds[c.Name] {
					reqCmdOrder = append(reqCmdOrder, c.Name)
				}
				m.reqCmds[c.Name] = true
				if plat != "" && m.platOf[c.Name] == "" {
					m.platOf[c.Name] = plat
				}
			}
			for _, e := range rq.Enums {
				if !forVulkan(e.API) {
					continue
				}
				if err := m.requireEnum(e, extNumber); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, f := range r.Features {
		if !forVulkan(f.API) {
			continue
		}
		if err := walk(f.Requires, "", ""); err != nil {
			return nil, err
		}
	}
	for _, e := range r.Extensions {
		if !forVulkan(e.Supported) {
			continue
		}
		if err := walk(e.Requires, e.Number, e.Platform); err != nil {
			return nil, fmt.Errorf("extension %s: %w", e.Name, err)
		}
	}
	if err := m.resolveAliases(); err != nil {
		return nil, err
	}
	if err := m.buildCommands(reqCmdOrder); err != nil {
		return nil, err
	}
	m.closeTypes()
	return m, nil
}

func (m *model) indexTypes(r *xRegistry) error {
	for i := range r.Types {
		x := &r.Types[i]
		if !forVulkan(x.API) {
			continue
		}
		name := x.Name
		if name == "" {
			name = tagText(x.Inner, "name")
		}
		if name == "" {
			continue
		}
		ti := &typeInfo{x: x}
		switch {
		case x.Alias != "":
			ti.Kind, ti.Under = kAlias, x.Alias
		case x.Category == "basetype":
			inner := unescaper.Replace(x.Inner)
			switch {
			case strings.Contains(inner, "<type>") && !strings.Contains(inner, "*"):
				ti.Kind, ti.Under = kNamed, cScalars[tagText(inner, "type")]
			case strings.Contains(inner, "*"):
				ti.Kind, ti.Under = kNamed, "uintptr"
			default:
				ti.Kind = kOpaque
			}
		case x.Category == "bitmask":
			ti.Kind, ti.Under = kBitmask, "uint32"
			if tagText(x.Inner, "type") == "VkFlags64" {
				ti.Under = "uint64"
			}
			ti.Bits = x.Requires
			if x.BitValues != "" {
				ti.Bits = x.BitValues
			}
		case x.Category == "handle":
			ti.Kind = kNDHandle
			if tagText(x.Inner, "type") == "VK_DEFINE_HANDLE" {
				ti.Kind = kHandle
			}
		case x.Category == "enum":
			ti.Kind = kEnum
		case x.Category == "struct" || x.Category == "union":
			ti.Kind = kStruct
			if x.Category == "union" {
				ti.Kind = kUnion
			}
			for _, mem := range x.Members {
				if !forVulkan(mem.API) {
					continue
				}
				d, err := parseDecl(mem.Inner)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if d.Name == "sType" && mem.Values != "" {
					ti.SType = mem.Values
				}
				ti.Fields = append(ti.Fields, d)
			}
		case x.Category == "funcpointer":
			ti.Kind = kFuncPtr
		case x.Category == "" && x.Requires != "":
			if _, ok := cScalars[name]; ok {
				ti.Kind = kScalar
			} else if p, ok := platformTypes[name]; ok {
				if p.Go == "" {
					ti.Kind = kOpaque
				} else {
					ti.Kind, ti.Under = kScalar, p.Go
				}
			} else {
				ti.Kind = kUnknown // e.g. StdVideo types: usable only behind pointers
			}
		default:
			continue
		}
		if _, dup := m.types[name]; !dup {
			m.typeOrder = append(m.typeOrder, name)
		}
		m.types[name] = ti
	}
	// FlagBits enums alias their Flags type.
	for _, name := range m.typeOrder {
		ti := m.types[name]
		if ti.Kind == kBitmask && ti.Bits != "" {
			if b, ok := m.types[ti.Bits]; ok && b.Kind == kEnum {
				b.Kind, b.Bits = kFlagBits, name
			}
		}
	}
	return nil
}

func (m *model) indexEnums(r *xRegistry) error {
	for _, es := range r.Enums {
		if es.Name == "API Constants" {
			for _, e := range es.Enums {
				c := &constant{CName: e.Name}
				switch {
				case e.Alias != "":
					c.Expr = goConstName(e.Alias)
				default:
					expr, err := cConstExpr(e.Value)
					if err != nil {
						return err
					}
					c.Expr = expr
				}
				m.addConst(c)
			}
			continue
		}
		g := &enumGroup{CName: es.Name, Bitmask: es.Type == "bitmask", Width: 32, byName: map[string]*enumVal{}}
		if es.BitWidth == "64" {
			g.Width = 64
		}
		for _, e := range es.Enums {
			if !forVulkan(e.API) {
				continue
			}
			v, err := enumValue(e, "")
			if err != nil {
				return fmt.Errorf("%s: %w", es.Name, err)
			}
			g.add(v)
		}
		m.groups[es.Name] = g
	}
	return nil
}

func (m *model) addConst(c *constant) {
	if m.constSeen[c.CName] {
		return
	}
	m.constSeen[c.CName] = true
	m.consts = append(m.consts, c)
}

// cConstExpr turns a C constant of the registry into an untyped Go constant.
func cConstExpr(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "(~0U)":
		return "0xFFFFFFFF", nil
	case "(~1U)":
		return "0xFFFFFFFE", nil
	case "(~2U)":
		return "0xFFFFFFFD", nil
	case "(~0ULL)":
		return "0xFFFFFFFFFFFFFFFF", nil
	}
	if strings.HasSuffix(v, "F") && strings.Contains(v, ".") {
		return strings.TrimSuffix(v, "F"), nil
	}
	if strings.HasPrefix(v, `"`) {
		return v, nil
	}
	if _, err := strconv.ParseInt(v, 0, 64); err == nil {
		return v, nil
	}
	return "", fmt.Errorf("unsupported constant value %q", v)
}

func enumValue(e xEnum, extNumber string) (*enumVal, error) {
	v := &enumVal{CName: e.Name}
	switch {
	case e.Alias != "":
		v.Alias = e.Alias
	case e.BitPos != "":
		n, err := strconv.Atoi(e.BitPos)
		if err != nil {
			return nil, err
		}
		v.Value, v.Bit = int64(uint64(1)<<uint(n)), true
	case e.Offset != "":
		if e.ExtNumber != "" {
			extNumber = e.ExtNumber
		}
		en, err := strconv.ParseInt(extNumber, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: extension number %q", e.Name, extNumber)
		}
		off, err := strconv.ParseInt(e.Offset, 10, 64)
		if err != nil {
			return nil, err
		}
		v.Value = 1000000000 + (en-1)*1000 + off
		if e.Dir == "-" {
			v.Value = -v.Value
		}
	case e.Value != "":
		n, err := strconv.ParseInt(e.Value, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: value %q: %w", e.Name, e.Value, err)
		}
		v.Value = n
	default:
		return nil, fmt.Errorf("%s: enum without a value", e.Name)
	}
	return v, nil
}

func (m *model) requireEnum(e xEnum, extNumber string) error {
	if e.Extends != "" {
		g := m.groups[e.Extends]
		if g == nil {
			return fmt.Errorf("enum %s extends unknown %s", e.Name, e.Extends)
		}
		v, err := enumValue(e, extNumber)
		if err != nil {
			return err
		}
		g.add(v)
		return nil
	}
	switch {
	case e.Value != "":
		expr, err := cConstExpr(unescaper.Replace(e.Value))
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		m.addConst(&constant{CName: e.Name, Expr: expr})
	case e.Alias != "":
		m.addConst(&constant{CName: e.Name, Expr: goConstName(e.Alias)})
	}
	return nil
}

// resolveAliases gives aliased enum values their numeric value.
func (m *model) resolveAliases() error {
	for _, g := range m.groups {
		for _, v := range g.Vals {
			seen := 0
			a := v
			for a.Alias != "" {
				t := g.byName[a.Alias]
				if t == nil || seen > 8 {
					return fmt.Errorf("%s: alias %s unresolved", g.CName, a.Alias)
				}
				a, seen = t, seen+1
			}
			v.Value = a.Value
		}
	}
	return nil
}

// target follows type aliases to the defining type.
func (m *model) target(name string) (string, *typeInfo) {
	for i := 0; i < 8; i++ {
		ti := m.types[name]
		if ti == nil || ti.Kind != kAlias {
			return name, ti
		}
		name = ti.Under
	}
	return name, nil
}

func (m *model) buildCommands(order []string) error {
	aliases := map[string][]string{}
	for _, name := range m.cmdOrder {
		c := m.cmds[name]
		if c.Alias != "" && m.reqCmds[name] {
			aliases[c.Alias] = append(aliases[c.Alias], name)
		}
	}
	done := map[string]bool{}
	for _, name := range order {
		c := m.cmds[name]
		if c == nil {
			return fmt.Errorf("required command %s not defined", name)
		}
		canon := name
		if c.Alias != "" {
			canon = c.Alias
		}
		if done[canon] || canon == "vkGetInstanceProcAddr" {
			continue
		}
		done[canon] = true
		def := m.cmds[canon]
		if def == nil || def.Alias != "" {
			return fmt.Errorf("command %s: alias chain", name)
		}
		ret, err := parseDecl(def.Proto.Inner)
		if err != nil {
			return err
		}
		cmd := &command{CName: canon, Ret: ret.Type, Aliases: aliases[canon], Plat: m.platOf[canon]}
		if ret.Ptr > 0 {
			return fmt.Errorf("command %s returns a pointer", canon)
		}
		for _, p := range def.Params {
			if !forVulkan(p.API) {
				continue
			}
			d, err := parseDecl(p.Inner)
			if err != nil {
				return fmt.Errorf("%s: %w", canon, err)
			}
			cmd.Params = append(cmd.Params, d)
		}
		first := ""
		if len(cmd.Params) > 0 && cmd.Params[0].Ptr == 0 {
			first = cmd.Params[0].Type
		}
		switch {
		case canon == "vkCreateInstance" || strings.HasPrefix(canon, "vkEnumerateInstance"):
			cmd.Level = levelGlobal
		case canon == "vkGetDeviceProcAddr":
			cmd.Level = levelInstance
		case first == "VkDevice" || first == "VkQueue" || first == "VkCommandBuffer":
			cmd.Level = levelDevice
		default:
			cmd.Level = levelInstance
		}
		m.commands = append(m.commands, cmd)
	}
	sort.SliceStable(m.commands, func(i, j int) bool {
		if m.commands[i].Level != m.commands[j].Level {
			return m.commands[i].Level < m.commands[j].Level
		}
		return m.commands[i].CName < m.commands[j].CName
	})
	return nil
}

// closeTypes adds to reqTypes every type that a required type or command
// depends on.
func (m *model) closeTypes() {
	var work []string
	add := func(n string) {
		if n == "" || m.visited[n] {
			return
		}
		m.reqTypes[n] = true
		work = append(work, n)
	}
	for n := range m.reqTypes {
		work = append(work, n)
	}
	sort.Strings(work)
	for _, c := range m.commands {
		add(c.Ret)
		for _, p := range c.Params {
			add(p.Type)
		}
	}
	add("VkStructureType")
	add("VkResult")
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if m.visited[n] {
			continue
		}
		m.visited[n] = true
		ti := m.types[n]
		if ti == nil {
			continue
		}
		switch ti.Kind {
		case kAlias:
			add(ti.Under)
		case kBitmask, kFlagBits:
			add(ti.Bits)
		case kStruct, kUnion:
			for _, f := range ti.Fields {
				add(f.Type)
			}
		}
	}
}
