package pemfile

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/asn1"
	"fmt"
	"hash"
)

// PKCS#8 encryption as RFC 8018 defines it (PBES2 with PBKDF2): what
// `openssl pkcs8 -topk8 -v2 <cipher>` writes and what Java's
// SslContextBuilder (Netty's SslContext.toPrivateKey with a password)
// reads. PBES1 (DES/RC2 with MD5 or SHA-1) is not read.

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// maxPBKDF2Iterations bounds the work a key file can ask for.
const maxPBKDF2Iterations = 10_000_000

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type encryptedPrivateKeyInfo struct {
	Algorithm     algorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KeyDerivationFunc algorithmIdentifier
	EncryptionScheme  algorithmIdentifier
}

type pbkdf2Params struct {
	Salt           []byte
	IterationCount int
	KeyLength      int                 `asn1:"optional"`
	PRF            algorithmIdentifier `asn1:"optional"`
}

// decryptPKCS8 returns the PrivateKeyInfo DER inside an
// EncryptedPrivateKeyInfo.
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if err := unmarshalAll(der, &info); err != nil {
		return nil, err
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("%w: encryption %v is not PBES2 (convert with openssl pkcs8 -topk8 -v2 aes-256-cbc)",
			ErrUnsupportedKey, info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if err := unmarshalAll(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, err
	}
	block, iv, err := newCipher(params.EncryptionScheme)
	if err != nil {
		return nil, err
	}
	key, err := deriveKey(params.KeyDerivationFunc, password, keySizeOf(params.EncryptionScheme))
	if err != nil {
		return nil, err
	}
	return decryptCBC(block(key), iv, info.EncryptedData)
}

func unmarshalAll(der []byte, v any) error {
	rest, err := asn1.Unmarshal(der, v)
	if err != nil {
		return fmt.Errorf("%w: malformed encrypted PKCS#8: %w", ErrUnsupportedKey, err)
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: trailing bytes after encrypted PKCS#8", ErrUnsupportedKey)
	}
	return nil
}

type cipherMaker func(key []byte) cipher.Block

// newCipher returns the block cipher constructor and IV of a PBES2
// encryption scheme.
func newCipher(alg algorithmIdentifier) (cipherMaker, []byte, error) {
	var iv []byte
	if _, err := asn1.Unmarshal(alg.Parameters.FullBytes, &iv); err != nil {
		return nil, nil, fmt.Errorf("%w: malformed cipher IV: %w", ErrUnsupportedKey, err)
	}
	var mk cipherMaker
	switch {
	case alg.Algorithm.Equal(oidAES128CBC), alg.Algorithm.Equal(oidAES192CBC), alg.Algorithm.Equal(oidAES256CBC):
		mk = func(k []byte) cipher.Block { b, _ := aes.NewCipher(k); return b }
	case alg.Algorithm.Equal(oidDESEDE3CBC):
		mk = func(k []byte) cipher.Block { b, _ := des.NewTripleDESCipher(k); return b }
	default:
		return nil, nil, fmt.Errorf("%w: cipher %v (use aes-128/192/256-cbc or des-ede3-cbc)", ErrUnsupportedKey, alg.Algorithm)
	}
	return mk, iv, nil
}

func keySizeOf(alg algorithmIdentifier) int {
	switch {
	case alg.Algorithm.Equal(oidAES128CBC):
		return 16
	case alg.Algorithm.Equal(oidAES192CBC), alg.Algorithm.Equal(oidDESEDE3CBC):
		return 24
	default:
		return 32
	}
}

// deriveKey runs PBKDF2 as the key derivation parameters say.
func deriveKey(kdf algorithmIdentifier, password string, size int) ([]byte, error) {
	if !kdf.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("%w: key derivation %v is not PBKDF2", ErrUnsupportedKey, kdf.Algorithm)
	}
	var p pbkdf2Params
	if err := unmarshalAll(kdf.Parameters.FullBytes, &p); err != nil {
		return nil, err
	}
	if p.IterationCount < 1 || p.IterationCount > maxPBKDF2Iterations {
		return nil, fmt.Errorf("%w: PBKDF2 iteration count %d out of 1..%d", ErrUnsupportedKey, p.IterationCount, maxPBKDF2Iterations)
	}
	if p.KeyLength != 0 && p.KeyLength != size {
		return nil, fmt.Errorf("%w: PBKDF2 key length %d does not fit the cipher (%d)", ErrUnsupportedKey, p.KeyLength, size)
	}
	h, err := prfOf(p.PRF)
	if err != nil {
		return nil, err
	}
	return pbkdf2.Key(h, password, p.Salt, p.IterationCount, size)
}

func prfOf(prf algorithmIdentifier) (func() hash.Hash, error) {
	switch {
	case len(prf.Algorithm) == 0, prf.Algorithm.Equal(oidHMACSHA1):
		return sha1.New, nil
	case prf.Algorithm.Equal(oidHMACSHA224):
		return sha256.New224, nil
	case prf.Algorithm.Equal(oidHMACSHA256):
		return sha256.New, nil
	case prf.Algorithm.Equal(oidHMACSHA384):
		return sha512.New384, nil
	case prf.Algorithm.Equal(oidHMACSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("%w: PBKDF2 PRF %v", ErrUnsupportedKey, prf.Algorithm)
}

// decryptCBC decrypts and strips PKCS#7 padding; a bad padding almost
// always means a wrong password.
func decryptCBC(b cipher.Block, iv, data []byte) ([]byte, error) {
	bs := b.BlockSize()
	if len(iv) != bs || len(data) == 0 || len(data)%bs != 0 {
		return nil, fmt.Errorf("%w: encrypted key has a bad IV or length", ErrUnsupportedKey)
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(b, iv).CryptBlocks(out, data)
	n := int(out[len(out)-1])
	if n == 0 || n > bs {
		return nil, ErrKeyPassword
	}
	pad := make([]byte, n)
	for i := range pad {
		pad[i] = byte(n)
	}
	if subtle.ConstantTimeCompare(out[len(out)-n:], pad) != 1 {
		return nil, ErrKeyPassword
	}
	return out[:len(out)-n], nil
}
