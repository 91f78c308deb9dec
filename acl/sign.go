package acl

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // ACL 1.0 signs with HMAC-SHA1 (AclSigner.DEFAULT_ALGORITHM)
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"unicode/utf16"

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
// units. It equals byte order unless a string holds a rune from U+E000 up.
func javaCompare(a, b string) int {
	if !hasHighRune(a) && !hasHighRune(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func hasHighRune(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xEE { // the first byte of U+E000 and above
			return true
		}
	}
	return false
}
