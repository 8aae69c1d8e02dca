{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["udp_batch.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"]
    }
  ]
}
