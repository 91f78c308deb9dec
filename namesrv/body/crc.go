package body

import "hash/crc32"

// CRC32 is UtilAll.crc32: the IEEE (zlib) CRC-32 of body with the sign bit
// cleared, as carried in REGISTER_BROKER's bodyCrc32. An empty body gives 0.
func CRC32(body []byte) int32 {
	return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)
}
