// shim/embree.c: the Embree twin of accel/bvh's benchmarks, built as a shared
// library and loaded by bench/embree's BenchmarkVsEmbree into the same
// process, which interleaves its rounds with the Go ones. It builds an Embree
// 3 scene over the same triangle soup and traces the same rays on the same
// number of threads (the benchmark harness only: no part of lucent).
//
//   cc -O2 -shared -fPIC -o libembreebench.so embree.c -lembree3 -lpthread
#include <embree3/rtcore.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static RTCDevice dev;
static RTCScene scene;

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// emb_init opens a device of threads build threads; 0 on success.
int emb_init(int threads) {
	char cfg[64];
	snprintf(cfg, sizeof cfg, "threads=%d,set_affinity=0", threads);
	dev = rtcNewDevice(cfg);
	return dev ? 0 : (int)rtcGetDeviceError(NULL);
}

// emb_build builds a scene over n triangles (9 floats each, as accel/bvh's
// Triangle) at quality 0 (low: Morton), 1 (medium: binned SAH) or 2 (high:
// SAH with spatial splits) and returns the nanoseconds it took, or -1.
int64_t emb_build(const float *tris, int64_t n, int quality) {
	if (scene) {
		rtcReleaseScene(scene);
		scene = NULL;
	}
	int64_t t0 = now_ns();
	scene = rtcNewScene(dev);
	rtcSetSceneBuildQuality(scene, quality == 0 ? RTC_BUILD_QUALITY_LOW : quality == 1 ? RTC_BUILD_QUALITY_MEDIUM : RTC_BUILD_QUALITY_HIGH);
	RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
	rtcSetGeometryBuildQuality(g, quality == 0 ? RTC_BUILD_QUALITY_LOW : quality == 1 ? RTC_BUILD_QUALITY_MEDIUM : RTC_BUILD_QUALITY_HIGH);
	float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), 3 * n);
	unsigned *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), n);
	if (!vb || !ib)
		return -1;
	memcpy(vb, tris, 9 * sizeof(float) * n);
	for (int64_t i = 0; i < 3 * n; i++)
		ib[i] = (unsigned)i;
	rtcCommitGeometry(g);
	rtcAttachGeometry(scene, g);
	rtcReleaseGeometry(g);
	rtcCommitScene(scene);
	if (rtcGetDeviceError(dev) != RTC_ERROR_NONE)
		return -1;
	return now_ns() - t0;
}

// The rays are accel/bvh's Ray, 36 bytes: origin, tmin, dir, tmax, mask.
typedef struct {
	float org[3], tmin, dir[3], tmax;
	uint8_t mask, pad[3];
} ray_t;

typedef struct {
	const ray_t *rays;
	int64_t n;
	int shadow;
	uint32_t *prim; // closest: primitive id or ~0; shadow: 1 occluded, 0 not
	float *t;
	atomic_llong next;
} job_t;

enum { CHUNK = 256 };

static void *worker(void *arg) {
	job_t *j = arg;
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	for (;;) {
		int64_t lo = atomic_fetch_add(&j->next, CHUNK);
		if (lo >= j->n)
			return NULL;
		int64_t hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;
		for (int64_t i = lo; i < hi; i++) {
			const ray_t *r = &j->rays[i];
			if (j->shadow) {
				struct RTCRay ry = {r->org[0], r->org[1], r->org[2], r->tmin, r->dir[0], r->dir[1], r->dir[2], 0, r->tmax, 0xffffffffu, 0, 0};
				rtcOccluded1(scene, &ctx, &ry);
				j->prim[i] = ry.tfar == -INFINITY;
				continue;
			}
			struct RTCRayHit rh;
			memset(&rh, 0, sizeof rh);
			rh.ray.org_x = r->org[0], rh.ray.org_y = r->org[1], rh.ray.org_z = r->org[2];
			rh.ray.dir_x = r->dir[0], rh.ray.dir_y = r->dir[1], rh.ray.dir_z = r->dir[2];
			rh.ray.tnear = r->tmin, rh.ray.tfar = r->tmax, rh.ray.mask = 0xffffffffu;
			rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
			rtcIntersect1(scene, &ctx, &rh);
			j->prim[i] = rh.hit.geomID == RTC_INVALID_GEOMETRY_ID ? 0xffffffffu : rh.hit.primID;
			j->t[i] = rh.ray.tfar;
		}
	}
}

// emb_trace traces n rays on threads threads (closest hits, or occlusion
// when shadow is set), writing each ray's result, and returns the
// nanoseconds it took.
int64_t emb_trace(const void *rays, int64_t n, int shadow, uint32_t *prim, float *t, int threads) {
	job_t j = {rays, n, shadow, prim, t};
	atomic_init(&j.next, 0);
	pthread_t th[64];
	if (threads > 64)
		threads = 64;
	int64_t t0 = now_ns();
	for (int i = 1; i < threads; i++)
		pthread_create(&th[i], NULL, worker, &j);
	worker(&j);
	for (int i = 1; i < threads; i++)
		pthread_join(th[i], NULL);
	return now_ns() - t0;
}
