// SPDX-License-Identifier: GPL-2.0
/* A workload result (engine or fio) as one JSON object, via json-c. */
#include "workload.h"

static void put_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void put_double(struct json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, json_object_new_double(v));
}

static void put_bool(struct json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

static struct json_object *lat_json(const struct wl_lat_summary *l)
{
	struct json_object *o = json_object_new_object();

	put_u64(o, "min", l->min_ns);
	put_u64(o, "mean", l->mean_ns);
	put_u64(o, "p50", l->p50_ns);
	put_u64(o, "p99", l->p99_ns);
	put_u64(o, "p99.9", l->p999_ns);
	put_u64(o, "max", l->max_ns);
	return o;
}

static struct json_object *dir_json(uint64_t ios, uint64_t bytes,
				    const struct wl_lat_summary *l)
{
	struct json_object *o = json_object_new_object();

	put_u64(o, "ios", ios);
	put_u64(o, "bytes", bytes);
	json_object_object_add(o, "lat_ns", lat_json(l));
	return o;
}

static struct json_object *spec_json(const struct wl_spec *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "rw", json_object_new_string(
		s->verify_only ? "verify-only" : wl_rw_name(s->rw)));
	put_u64(o, "bs", s->bs);
	put_u64(o, "iodepth", s->iodepth);
	put_u64(o, "jobs", s->jobs);
	put_u64(o, "runtime_ms", s->runtime_ms);
	put_u64(o, "size", s->size);
	put_u64(o, "ramp_ms", s->ramp_ms);
	put_u64(o, "seed", s->seed);
	put_u64(o, "rwmixread", s->rwmixread);
	put_u64(o, "offset", s->offset);
	put_u64(o, "length", s->length);
	put_bool(o, "verify", s->verify || s->verify_only);
	put_bool(o, "direct", s->direct);
	put_bool(o, "fixedbufs", s->fixed_bufs);
	return o;
}

static struct json_object *verify_json(const struct wl_result *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();
	unsigned int i;

	put_u64(o, "errors", r->verify_errors);
	put_u64(o, "verified_bytes", r->verified_bytes);
	for (i = 0; i < r->nr_reported; i++) {
		struct json_object *m = json_object_new_object();

		put_u64(m, "offset", r->reported[i].offset);
		json_object_object_add(m, "what",
			json_object_new_string(r->reported[i].what));
		json_object_array_add(list, m);
	}
	json_object_object_add(o, "first_mismatches", list);
	return o;
}

static struct json_object *cost_json(const struct wl_result *r)
{
	struct json_object *o = json_object_new_object();

	put_u64(o, "cpu_user_ns", r->cpu_user_ns);
	put_u64(o, "cpu_sys_ns", r->cpu_sys_ns);
	put_u64(o, "cpu_ns", r->cpu_ns);
	json_object_object_add(o, "cpu_source", json_object_new_string(
		r->cpu_from_perf ? "task-clock" : "getrusage"));
	put_u64(o, "ctx_switches", r->ctx_switches);
	put_u64(o, "page_faults", r->page_faults);
	if (r->has_uring_counts) {
		put_u64(o, "uring_enters", r->uring_enters);
		put_u64(o, "sqes", r->sqes);
	}
	return o;
}

struct json_object *wl_result_to_json(const struct wl_result *r,
				      const struct wl_spec *spec)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "source", json_object_new_string(r->source));
	if (spec)
		json_object_object_add(o, "spec", spec_json(spec));
	put_u64(o, "ios", r->ios);
	put_u64(o, "bytes", r->bytes);
	put_u64(o, "elapsed_ns", r->elapsed_ns);
	put_double(o, "iops", r->iops);
	put_double(o, "bw_bytes_per_s", r->bw_bytes_per_s);
	json_object_object_add(o, "lat_ns", lat_json(&r->lat_all));
	json_object_object_add(o, "read",
		dir_json(r->read_ios, r->read_bytes, &r->lat_read));
	json_object_object_add(o, "write",
		dir_json(r->write_ios, r->write_bytes, &r->lat_write));
	json_object_object_add(o, "cost", cost_json(r));
	json_object_object_add(o, "verify", verify_json(r));
	put_u64(o, "prefill_bytes", r->prefill_bytes);
	put_bool(o, "direct", r->direct);
	json_object_object_add(o, "error", json_object_new_int(r->error));
	return o;
}
