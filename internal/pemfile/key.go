package pemfile

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// Key reads the first private key of the PEM file at path (see ParseKey).
func Key(path, password string) (crypto.Signer, error) {
	data, err := Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMaterial, err)
	}
	return ParseKey(data, password)
}

// ParseKey decodes the first private key of PEM data: PKCS#8 ("PRIVATE
// KEY"), PKCS#8 encrypted with PBES2 ("ENCRYPTED PRIVATE KEY", needs the
// password: ErrKeyPassword without it), PKCS#1 ("RSA PRIVATE KEY") or
// SEC 1 ("EC PRIVATE KEY"). Legacy OpenSSL-encrypted PEM (Proc-Type:
// 4,ENCRYPTED) is refused (ErrUnsupportedKey): Java does not read it
// either.
func ParseKey(data []byte, password string) (crypto.Signer, error) {
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if _, enc := block.Headers["Proc-Type"]; enc {
			return nil, fmt.Errorf("%w: legacy encrypted PEM; convert with openssl pkcs8 -topk8 -v2 aes-256-cbc", ErrUnsupportedKey)
		}
		switch block.Type {
		case "PRIVATE KEY":
			return asSigner(x509.ParsePKCS8PrivateKey(block.Bytes))
		case "ENCRYPTED PRIVATE KEY":
			return parseEncrypted(block.Bytes, password)
		case "RSA PRIVATE KEY":
			return asSigner(x509.ParsePKCS1PrivateKey(block.Bytes))
		case "EC PRIVATE KEY":
			return asSigner(x509.ParseECPrivateKey(block.Bytes))
		}
	}
	return nil, fmt.Errorf("%w: no PEM private key", ErrMaterial)
}

func parseEncrypted(der []byte, password string) (crypto.Signer, error) {
	if password == "" {
		return nil, fmt.Errorf("%w: the key is encrypted and no password is set", ErrKeyPassword)
	}
	plain, err := decryptPKCS8(der, password)
	if err != nil {
		return nil, err
	}
	k, err := asSigner(x509.ParsePKCS8PrivateKey(plain))
	if err != nil {
		return nil, ErrKeyPassword // a wrong password that happened to unpad
	}
	return k, nil
}

func asSigner[K any](k K, err error) (crypto.Signer, error) {
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMaterial, err)
	}
	s, ok := any(k).(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: key type %T cannot sign", ErrMaterial, k)
	}
	return s, nil
}

// Pair returns the tls.Certificate of chain (leaf first, Leaf set) and
// key, checking that key holds the leaf's public key and can sign a
// handshake. Errors wrap ErrMaterial (and ErrKeyMismatch for another
// certificate's key).
func Pair(chain []*x509.Certificate, key crypto.Signer) (*tls.Certificate, error) {
	type publicKeyEqualer interface{ Equal(crypto.PublicKey) bool }
	pub, ok := key.Public().(publicKeyEqualer)
	if !ok || len(chain) == 0 || !pub.Equal(chain[0].PublicKey) {
		return nil, fmt.Errorf("%w: %w", ErrMaterial, ErrKeyMismatch)
	}
	if err := canSign(key); err != nil {
		return nil, fmt.Errorf("%w: the private key cannot sign a TLS handshake: %w", ErrMaterial, err)
	}
	c := &tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, x := range chain {
		c.Certificate = append(c.Certificate, x.Raw)
	}
	return c, nil
}

// canSign signs a test digest with key, as every handshake will: a key
// the crypto packages refuse (RSA under 1024 bits) would otherwise load
// and then fail each handshake.
func canSign(key crypto.Signer) error {
	digest := sha256.Sum256([]byte("rmqgo tls key check"))
	var err error
	if _, ok := key.(ed25519.PrivateKey); ok {
		_, err = key.Sign(rand.Reader, digest[:], crypto.Hash(0))
	} else {
		_, err = key.Sign(rand.Reader, digest[:], crypto.SHA256)
	}
	return err
}
