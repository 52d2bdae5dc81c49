package vulkan

// The pipeline cache is one VkPipelineCache per device, seeded at Open from
// the blob the shader cache holds for this device and driver, passed to every
// vkCreateComputePipelines, and written back at Close. A blob is handed to
// the driver only when it comes back whole and its
// VkPipelineCacheHeaderVersionOne names this very device: the specification
// lets a driver ignore foreign data, but a truncated or damaged blob can
// still crash some drivers, so it is cheaper to drop here than to trust
// every driver with. The blob is stored in a shadercache.RecordPipelineCache
// record keyed by the PipelineID, whose checksum catches damage from a store
// that checks nothing (a user's own BinaryIO); the header is then checked
// against the device.
//
// Worked example of the header check, for lavapipe (vendor 0x10005):
//
//	20 00 00 00   headerSize 32 (at least 32)
//	01 00 00 00   headerVersion VK_PIPELINE_CACHE_HEADER_VERSION_ONE
//	05 00 01 00   vendorID   — must equal VkPhysicalDeviceProperties.vendorID
//	00 00 00 00   deviceID   — must equal VkPhysicalDeviceProperties.deviceID
//	…16 bytes…    pipelineCacheUUID — must equal the device's
//
// Anything else (a bad record, too short, another version, another device)
// is ignored: the cache starts empty and the blob is replaced at Close.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/vk"
)

// pipelineCacheHeaderSize is sizeof(VkPipelineCacheHeaderVersionOne).
const pipelineCacheHeaderSize = 32

// pipelineCache is a device's VkPipelineCache and where it is persisted.
type pipelineCache struct {
	handle   vk.PipelineCache
	store    shadercache.BinaryIO // nil: not persisted
	id       shadercache.PipelineID
	log      *slog.Logger
	loaded   []byte // the blob the cache was seeded with (nil: started empty)
	rejected bool   // a stored blob was found but did not fit this device
	feedback bool   // the device reports cache hits through creation feedback

	hits, misses, reported atomic.Uint64
}

// openPipelineCache creates the device's VkPipelineCache, seeded from
// opts.ShaderCache where it holds a blob for this device and driver. Failing
// to read the store only costs compile time, so it is logged, not returned;
// failing to create the cache object is an error.
func (d *Device) openPipelineCache(opts device.Options) error {
	p := d.phys
	c := &d.pcache
	c.log = opts.Logger
	if c.log == nil {
		c.log = slog.Default()
	}
	c.id = shadercache.PipelineID{DeviceUUID: p.props.PipelineCacheUUID, DriverVersion: p.props.DriverVersion}
	c.feedback = p.props.ApiVersion >= vk.API_VERSION_1_3
	if opts.ShaderCache != nil && opts.ShaderCache != shadercache.Disabled {
		// Disabled (caching off) stores nothing: neither read it at Open
		// nor fetch the driver's data for it at Close.
		c.store = opts.ShaderCache
		blob, ok, err := c.store.ReadPipelineCache(c.id)
		switch {
		case err != nil:
			c.log.Warn("vulkan: reading the pipeline cache", "id", c.id.String(), "error", err)
		case ok:
			data, err := shadercache.DecodeRecord(blob, shadercache.RecordPipelineCache, c.id.String())
			var why string
			if err != nil {
				why = err.Error()
			} else {
				why = p.checkPipelineCacheHeader(data)
			}
			if why != "" {
				c.rejected = true
				c.log.Warn("vulkan: ignoring a stored pipeline cache", "id", c.id.String(), "reason", why)
			} else {
				c.loaded = data
			}
		}
	}
	ci := vk.PipelineCacheCreateInfo{SType: vk.STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO}
	if len(c.loaded) > 0 {
		ci.InitialDataSize = uintptr(len(c.loaded))
		ci.PInitialData = unsafe.Pointer(&c.loaded[0])
	}
	err := check("vkCreatePipelineCache", d.fn.CreatePipelineCache(d.vk, &ci, nil, &c.handle))
	if err != nil && len(c.loaded) > 0 {
		// A driver may refuse data it cannot use; start empty instead.
		c.log.Warn("vulkan: the driver refused the stored pipeline cache", "id", c.id.String(), "error", err)
		c.loaded, c.rejected = nil, true
		ci.InitialDataSize, ci.PInitialData = 0, nil
		err = check("vkCreatePipelineCache", d.fn.CreatePipelineCache(d.vk, &ci, nil, &c.handle))
	}
	if err != nil {
		return fmt.Errorf("vulkan: pipeline cache: %w", err)
	}
	if len(c.loaded) > 0 {
		c.log.Debug("vulkan: pipeline cache loaded", "id", c.id.String(), "bytes", len(c.loaded))
	}
	return nil
}

// checkPipelineCacheHeader says why blob is not a pipeline cache of this
// device ("" when it is).
func (p *physical) checkPipelineCacheHeader(blob []byte) string {
	if len(blob) < pipelineCacheHeaderSize {
		return fmt.Sprintf("%d bytes, shorter than the %d-byte header", len(blob), pipelineCacheHeaderSize)
	}
	le := binary.LittleEndian
	size, version := le.Uint32(blob[0:]), le.Uint32(blob[4:])
	vendor, dev := le.Uint32(blob[8:]), le.Uint32(blob[12:])
	switch {
	case size < pipelineCacheHeaderSize || uint64(size) > uint64(len(blob)):
		return fmt.Sprintf("header size %d in a %d-byte blob", size, len(blob))
	case version != uint32(vk.PIPELINE_CACHE_HEADER_VERSION_ONE):
		return fmt.Sprintf("header version %d, want %d", version, vk.PIPELINE_CACHE_HEADER_VERSION_ONE)
	case vendor != p.props.VendorID || dev != p.props.DeviceID:
		return fmt.Sprintf("vendor/device %#x/%#x, this device is %#x/%#x", vendor, dev, p.props.VendorID, p.props.DeviceID)
	case !bytes.Equal(blob[16:32], p.props.PipelineCacheUUID[:]):
		return "another pipelineCacheUUID"
	}
	return ""
}

// createComputePipeline calls vkCreateComputePipelines through the device's
// pipeline cache, counting the driver's reported cache hits.
func (d *Device) createComputePipeline(ci *vk.ComputePipelineCreateInfo, out *vk.Pipeline) vk.Result {
	c := &d.pcache
	var fb vk.PipelineCreationFeedback
	var fci vk.PipelineCreationFeedbackCreateInfo
	if c.feedback && ci.PNext == nil {
		fci = vk.PipelineCreationFeedbackCreateInfo{
			SType: vk.STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO, PPipelineCreationFeedback: &fb,
		}
		ci.PNext = unsafe.Pointer(&fci)
		defer func() { ci.PNext = nil }()
	}
	r := d.fn.CreateComputePipelines(d.vk, c.handle, 1, ci, nil, out)
	if r == vk.SUCCESS && fb.Flags&vk.PIPELINE_CREATION_FEEDBACK_VALID_BIT != 0 {
		c.reported.Add(1)
		if fb.Flags&vk.PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT != 0 {
			c.hits.Add(1)
		} else {
			c.misses.Add(1)
		}
	}
	return r
}

// PipelineCacheStats reports the pipeline cache of the device.
func (d *Device) PipelineCacheStats() device.PipelineCacheStats {
	c := &d.pcache
	return device.PipelineCacheStats{
		Persisted:   c.store != nil,
		LoadedBytes: len(c.loaded),
		Rejected:    c.rejected,
		Reported:    c.reported.Load(),
		Hits:        c.hits.Load(),
		Misses:      c.misses.Load(),
	}
}

// closePipelineCache writes the cache's data back to the store (unless it is
// what was loaded) and destroys it. The device must be idle.
func (d *Device) closePipelineCache() {
	c := &d.pcache
	if c.handle == 0 {
		return
	}
	defer func() {
		_ = d.fn.DestroyPipelineCache(d.vk, c.handle, nil)
		c.handle = 0
	}()
	if c.store == nil {
		return
	}
	data, err := d.pipelineCacheData()
	if err != nil {
		c.log.Warn("vulkan: saving the pipeline cache", "id", c.id.String(), "error", err)
		return
	}
	if len(data) < pipelineCacheHeaderSize || bytes.Equal(data, c.loaded) {
		return // nothing new to save
	}
	rec := shadercache.AppendRecord(nil, shadercache.RecordPipelineCache, c.id.String(), data)
	if err := c.store.WritePipelineCache(c.id, rec); err != nil {
		c.log.Warn("vulkan: saving the pipeline cache", "id", c.id.String(), "error", err)
		return
	}
	c.log.Debug("vulkan: pipeline cache saved", "id", c.id.String(), "bytes", len(data))
}

// pipelineCacheData returns vkGetPipelineCacheData's blob.
func (d *Device) pipelineCacheData() ([]byte, error) {
	c := &d.pcache
	for {
		var n uintptr
		if err := check("vkGetPipelineCacheData", d.fn.GetPipelineCacheData(d.vk, c.handle, &n, nil)); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		buf := make([]byte, n)
		r := d.fn.GetPipelineCacheData(d.vk, c.handle, &n, unsafe.Pointer(&buf[0]))
		if r == vk.INCOMPLETE {
			continue // grew in between
		}
		if err := check("vkGetPipelineCacheData", r); err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}
