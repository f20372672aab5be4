"""Dense context: what the hashed models read from a tok2vec's token vectors, and the numerical
kernels that make it cheap. clusters (ContextClusters: k-means centroids of the vectors, fitted at
`initialize`, a feature column per k for the tagger and the joint parser), kmeans (flat sets or one
tree; shortlist.pyx: the int8 nearest-centroid search on AVX-512 VNNI or AVX2, proven exact), blas
(small products on one BLAS thread; OneThreadNumpyOps), numpy_gemm (the
`spacy_joint_sbd.numpy_gemm.v1` callback giving a pipeline's tok2vec those ops), bounded_tok2vec
(a tok2vec whose work is bounded per token) and tok2vec_depth (a pretrained CNN tok2vec cut to its
first k encoder layers).

Below the components: imports `learn` and `corpus` only, never `pipeline`.
"""
