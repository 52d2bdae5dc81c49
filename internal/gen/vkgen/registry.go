package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// The XML shapes of vk.xml that the generator reads. Mixed-content elements
// (members, params, type definitions) keep their inner XML and are parsed by
// parseDecl, because the C declaration is spread over text and child tags.

type xRegistry struct {
	Types      []xType      `xml:"types>type"`
	Enums      []xEnums     `xml:"enums"`
	Commands   []xCommand   `xml:"commands>command"`
	Features   []xFeature   `xml:"feature"`
	Extensions []xExtension `xml:"extensions>extension"`
}

type xType struct {
	Name      string    `xml:"name,attr"`
	Category  string    `xml:"category,attr"`
	Requires  string    `xml:"requires,attr"`
	BitValues string    `xml:"bitvalues,attr"`
	Alias     string    `xml:"alias,attr"`
	API       string    `xml:"api,attr"`
	Inner     string    `xml:",innerxml"`
	Members   []xMember `xml:"member"`
}

type xMember struct {
	API    string `xml:"api,attr"`
	Values string `xml:"values,attr"`
	Inner  string `xml:",innerxml"`
}

type xEnums struct {
	Name     string  `xml:"name,attr"`
	Type     string  `xml:"type,attr"`
	BitWidth string  `xml:"bitwidth,attr"`
	Enums    []xEnum `xml:"enum"`
}

type xEnum struct {
	Name      string `xml:"name,attr"`
	Value     string `xml:"value,attr"`
	BitPos    string `xml:"bitpos,attr"`
	Alias     string `xml:"alias,attr"`
	Type      string `xml:"type,attr"`
	Extends   string `xml:"extends,attr"`
	Offset    string `xml:"offset,attr"`
	Dir       string `xml:"dir,attr"`
	ExtNumber string `xml:"extnumber,attr"`
	API       string `xml:"api,attr"`
}

type xCommand struct {
	Name   string   `xml:"name,attr"`
	Alias  string   `xml:"alias,attr"`
	API    string   `xml:"api,attr"`
	Proto  xMember  `xml:"proto"`
	Params []xParam `xml:"param"`
}

type xParam struct {
	API   string `xml:"api,attr"`
	Inner string `xml:",innerxml"`
}

type xName struct {
	Name string `xml:"name,attr"`
}

type xRequire struct {
	API      string  `xml:"api,attr"`
	Types    []xName `xml:"type"`
	Enums    []xEnum `xml:"enum"`
	Commands []xName `xml:"command"`
}

type xFeature struct {
	API      string     `xml:"api,attr"`
	Name     string     `xml:"name,attr"`
	Requires []xRequire `xml:"require"`
}

type xExtension struct {
	Name      string     `xml:"name,attr"`
	Number    string     `xml:"number,attr"`
	Supported string     `xml:"supported,attr"`
	Platform  string     `xml:"platform,attr"`
	Requires  []xRequire `xml:"require"`
}

func readRegistry(path string) (*xRegistry, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var r xRegistry
	if err := xml.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &r, data, nil
}

// forVulkan reports whether an api attribute (a comma list, empty for all)
// includes the Vulkan API, as opposed to Vulkan SC only.
func forVulkan(api string) bool {
	if api == "" {
		return true
	}
	for _, a := range strings.Split(api, ",") {
		if a == "vulkan" {
			return true
		}
	}
	return false
}

// decl is one C declaration: `const T* const* name[N][M] : bits`.
type decl struct {
	Type  string   // the base C type name
	Name  string   // the declared name
	Ptr   int      // levels of indirection
	Const bool     // the pointee (or value) is const
	Dims  []string // array dimensions, numbers or constant names
	Bits  int      // bitfield width, 0 if none
}

var (
	reComment = regexp.MustCompile(`(?s)<comment>.*?</comment>`)
	reTypeTag = regexp.MustCompile(`<type>([^<]*)</type>`)
	reNameTag = regexp.MustCompile(`<name>([^<]*)</name>`)
	reEnumTag = regexp.MustCompile(`<enum>([^<]*)</enum>`)
	reDim     = regexp.MustCompile(`\[\s*([A-Za-z0-9_]+)\s*\]`)
	reBits    = regexp.MustCompile(`:\s*(\d+)`)
)

var unescaper = strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&apos;", "'")

func parseDecl(inner string) (decl, error) {
	s := reComment.ReplaceAllString(inner, "")
	tl := reTypeTag.FindStringSubmatchIndex(s)
	nl := reNameTag.FindStringSubmatchIndex(s)
	if tl == nil || nl == nil || nl[0] < tl[1] {
		return decl{}, fmt.Errorf("cannot parse declaration %q", inner)
	}
	d := decl{Type: s[tl[2]:tl[3]], Name: s[nl[2]:nl[3]]}
	pre, mid, post := s[:tl[0]], s[tl[1]:nl[0]], s[nl[1]:]
	d.Const = strings.Contains(pre, "const")
	d.Ptr = strings.Count(mid, "*")
	post = reEnumTag.ReplaceAllString(post, "$1")
	for _, m := range reDim.FindAllStringSubmatch(post, -1) {
		d.Dims = append(d.Dims, m[1])
	}
	if m := reBits.FindStringSubmatch(post); m != nil {
		d.Bits, _ = strconv.Atoi(m[1])
	}
	return d, nil
}

// tagText returns the text of the first <tag> child in inner XML.
func tagText(inner, tag string) string {
	re := regexp.MustCompile(`<` + tag + `>([^<]*)</` + tag + `>`)
	if m := re.FindStringSubmatch(inner); m != nil {
		return m[1]
	}
	return ""
}
