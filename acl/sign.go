package acl

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // ACL 1.0 signs with HMAC-SHA1 (AclSigner.DEFAULT_ALGORITHM)
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rmqgo/nameserver/remoting"
)

// Extension field names of a signed request (SessionCredentials.java).
const (
	FieldAccessKey     = "AccessKey"
	FieldSignature     = "Signature"
	FieldSecurityToken = "SecurityToken"
)

// Content returns the bytes a signature covers: the values of every
// extField but Signature, in Java TreeMap order of their keys, then body
// (AclUtils.combineRequestContent).
func Content(ext map[string]string, body []byte) []byte {
	var out []byte
	for _, k := range sortedKeys(ext, "") {
		out = append(out, ext[k]...)
	}
	return append(out, body...)
}

// sortedKeys returns the keys of ext but Signature and skip, in Java
// TreeMap order.
func sortedKeys(ext map[string]string, skip string) []string {
	keys := make([]string, 0, len(ext))
	for k := range ext {
		if k != FieldSignature && (skip == "" || k != skip) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, javaCompare)
	return keys
}

// Signature returns base64(HMAC-SHA1(secret, content)) (AclSigner.calSignature).
func Signature(content []byte, secret string) string {
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write(content)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// signFields is Signature(Content(ext without skip, body), secret), fed to
// the MAC piece by piece so that a large body is not copied.
func signFields(ext map[string]string, skip string, body []byte, secret string) string {
	mac := hmac.New(sha1.New, []byte(secret))
	for _, k := range sortedKeys(ext, skip) {
		_, _ = io.WriteString(mac, ext[k])
	}
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Sign adds AccessKey (and SecurityToken when not empty) to req and then
// its Signature, as Java's AclClientRPCHook.doBeforeRequest does.
func Sign(req *remoting.Command, accessKey, secretKey, securityToken string) {
	req.SetExt(FieldAccessKey, accessKey)
	if securityToken != "" {
		req.SetExt(FieldSecurityToken, securityToken)
	}
	req.SetExt(FieldSignature, signFields(req.ExtFields, "", req.Body, secretKey))
}

// validSignature reports in constant time whether req's Signature is the
// one secret gives its content. With a SecurityToken it also accepts
// rocketmq-client-go's signature, which leaves the token's value out (its
// ACLInterceptor never adds the key to its sort order); we give the token
// no meaning, so leaving it unsigned loses nothing.
func validSignature(req *remoting.Command, secret string) bool {
	got, ok := req.ExtString(FieldSignature)
	want := signFields(req.ExtFields, "", req.Body, secret)
	if hmac.Equal([]byte(got), []byte(want)) {
		return ok
	}
	if _, token := req.ExtString(FieldSecurityToken); !token {
		return false
	}
	want = signFields(req.ExtFields, FieldSecurityToken, req.Body, secret)
	return hmac.Equal([]byte(got), []byte(want)) && ok
}

// javaCompare orders strings as Java's String.compareTo: by UTF-16 code
// units. It equals byte order unless a string holds a rune from U+E000 up;
// then it skips the common prefix bytewise and compares rune by rune from
// the last rune start before the first difference, without allocating
// (invalid UTF-8 counts as U+FFFD, as a conversion to UTF-16 makes it).
func javaCompare(a, b string) int {
	if !hasHighRune(a) && !hasHighRune(b) {
		return strings.Compare(a, b)
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i > 0 { // a[:i] == b[:i]: a rune start before i is one in both
		i--
		for i > 0 && !utf8.RuneStart(a[i]) {
			i--
		}
	}
	for a, b = a[i:], b[i:]; a != "" && b != ""; {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return compareUTF16(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b)) // the one left over is longer
}

// compareUTF16 orders two different runes by their UTF-16 code units: a
// rune above U+FFFF is a surrogate pair, whose first unit (U+D800 to
// U+DBFF) sorts below U+E000 to U+FFFF.
func compareUTF16(a, b rune) int {
	a1, a2 := utf16Units(a)
	b1, b2 := utf16Units(b)
	if c := cmp.Compare(a1, b1); c != 0 {
		return c
	}
	return cmp.Compare(a2, b2)
}

func utf16Units(r rune) (rune, rune) {
	if r < 0x10000 {
		return r, 0
	}
	return utf16.EncodeRune(r)
}

func hasHighRune(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xEE { // the first byte of U+E000 and above
			return true
		}
	}
	return false
}
