// core/cuda/graph_capture.h — what the CUDA backend's memory calls (memory_cuda.cu) and its graph
// ops (graph_cuda.cu) share about a capture in progress: a call that cannot be captured (a
// download or synchronize, i.e. a host read inside the step; an upload from pageable memory)
// does nothing while the stream is capturing and records why instead of dying, and graph_end
// then discards the capture and says so (the caller runs the step eagerly).
#pragma once

// 1 while cuda_stream() is capturing a graph.
int cuda_graph_capturing(void);
// Marks the capture in progress as unusable, keeping the first reason (a static string).
void cuda_graph_refuse(const char *why);
