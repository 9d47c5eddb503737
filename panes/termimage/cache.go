package termimage

import (
	"container/list"
	"hash/maphash"
	"sync"
)

// Cache keeps decoded thumbnails (and the errors of images that do not
// decode) by their bytes, the least recently used dropped first once
// their pixels pass a budget. It never keeps an original. It is safe for
// use by the Cmds that decode off the UI goroutine.
type Cache struct {
	mu     sync.Mutex
	budget int // bytes of thumbnail pixels
	used   int
	order  *list.List // of *cacheEntry, the most recent first
	byKey  map[Key]*list.Element
}

// Key names an image by its base64 text.
type Key struct {
	hash uint64
	size int
}

type cacheEntry struct {
	key Key
	img *Image
	err error
}

var seed = maphash.MakeSeed()

// KeyOf is the key of an image's base64 text: hashed, not decoded, so
// that a view knows at once whether an image is decoded already.
func KeyOf(b64 string) Key { return Key{hash: maphash.String(seed, b64), size: len(b64)} }

// DefaultCacheBytes is the thumbnails' budget: about thirty full-size
// thumbnails.
const DefaultCacheBytes = 32 << 20

// NewCache makes a cache that keeps at most budget bytes of thumbnails.
func NewCache(budget int) *Cache {
	return &Cache{budget: budget, order: list.New(), byKey: map[Key]*list.Element{}}
}

// Get is what DecodeBase64 made of b64, decoded now or remembered. It
// decodes, so it belongs off the UI goroutine.
func (c *Cache) Get(b64, mime string) (*Image, error) {
	k := KeyOf(b64)
	if img, err, ok := c.Lookup(k); ok {
		return img, err
	}
	img, err := DecodeBase64(b64, mime)
	c.put(k, img, err)
	return img, err
}

// Lookup is what the cache holds for k, if anything.
func (c *Cache) Lookup(k Key) (*Image, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil, nil, false
	}
	c.order.MoveToFront(e)
	ent := e.Value.(*cacheEntry)
	return ent.img, ent.err, true
}

func (c *Cache) put(k Key, img *Image, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{key: k, img: img, err: err})
	c.used += cost(img)
	for c.used > c.budget && c.order.Len() > 1 {
		last := c.order.Back()
		ent := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.byKey, ent.key)
		c.used -= cost(ent.img)
	}
}

// Len is how many images the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Bytes is how many bytes of thumbnail pixels the cache holds.
func (c *Cache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

func cost(img *Image) int {
	if img == nil || img.Thumb == nil {
		return 64
	}
	return len(img.Thumb.Pix)
}
