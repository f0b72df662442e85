"""The TensorFlow 2.21 API functions that dispatch (TensorFlow's `add_dispatch_support`), by canonical name.

tf_keras turns a call of one of these on KerasTensors into a TFOpLambda layer named `tf.<canonical name>`; a
token `canonical:alias:alias` lists the other public paths of the same function (`math.argmax:argmax`). The
list was read from TensorFlow 2.21's own API (the functions carrying its dispatchers); functions it leaves out
(tf.map_fn, tf.while_loop, tf.gradients, tf.sparse.to_dense, tf.signal.rfft ...) refuse KerasTensors there.
"""

NAMES = """
approx_top_k argsort batch_to_space bitcast bitwise.bitwise_and bitwise.bitwise_or bitwise.bitwise_xor
bitwise.invert bitwise.left_shift bitwise.right_shift boolean_mask broadcast_dynamic_shape broadcast_static_shape
broadcast_to case cast:dtypes.cast check_pinned clip_by_global_norm clip_by_norm clip_by_value concat cond conv
conv2d_backprop_filter_v2 conv2d_backprop_input_v2 convert_to_tensor debugging.Assert:Assert
debugging.assert_all_finite debugging.assert_equal:assert_equal debugging.assert_greater:assert_greater
debugging.assert_greater_equal debugging.assert_integer debugging.assert_less:assert_less
debugging.assert_less_equal debugging.assert_near debugging.assert_negative debugging.assert_non_negative
debugging.assert_non_positive debugging.assert_none_equal debugging.assert_positive
debugging.assert_proper_iterable debugging.assert_rank:assert_rank debugging.assert_rank_at_least
debugging.assert_rank_in debugging.assert_same_float_dtype debugging.assert_scalar debugging.assert_shapes
debugging.assert_type debugging.check_numerics dtypes.complex:complex dtypes.saturate_cast:saturate_cast
dynamic_partition dynamic_stitch edit_distance einsum:linalg.einsum ensure_shape expand_dims
extract_volume_patches eye:linalg.eye fftnd fill fingerprint foldl foldr gather gather_nd histogram_fixed_width
histogram_fixed_width_bins identity identity_n ifftnd image.adjust_brightness image.adjust_contrast
image.adjust_gamma image.adjust_hue image.adjust_jpeg_quality image.adjust_saturation image.central_crop
image.combined_non_max_suppression image.convert_image_dtype image.crop_and_resize image.crop_to_bounding_box
image.draw_bounding_boxes image.extract_glimpse image.extract_patches image.flip_left_right image.flip_up_down
image.generate_bounding_box_proposals image.grayscale_to_rgb image.hsv_to_rgb image.image_gradients
image.non_max_suppression image.non_max_suppression_overlaps image.non_max_suppression_padded
image.non_max_suppression_with_scores image.pad_to_bounding_box image.per_image_standardization image.psnr
image.random_brightness image.random_contrast image.random_crop image.random_flip_left_right
image.random_flip_up_down image.random_hue image.random_jpeg_quality image.random_saturation image.resize
image.resize_with_crop_or_pad image.resize_with_pad image.rgb_to_grayscale image.rgb_to_hsv image.rgb_to_yiq
image.rgb_to_yuv image.rot90 image.sample_distorted_bounding_box image.sobel_edges image.ssim
image.ssim_multiscale image.stateless_random_brightness image.stateless_random_contrast
image.stateless_random_crop image.stateless_random_flip_left_right image.stateless_random_flip_up_down
image.stateless_random_hue image.stateless_random_jpeg_quality image.stateless_random_saturation
image.stateless_sample_distorted_bounding_box image.total_variation image.transpose image.yiq_to_rgb
image.yuv_to_rgb io.decode_and_crop_jpeg:image.decode_and_crop_jpeg io.decode_bmp:image.decode_bmp
io.decode_gif:image.decode_gif io.decode_image:image.decode_image io.decode_jpeg:image.decode_jpeg
io.decode_jxl:image.decode_jxl io.decode_png:image.decode_png io.decode_webp:image.decode_webp
io.encode_jpeg:image.encode_jpeg io.encode_png:image.encode_png io.extract_jpeg_shape:image.extract_jpeg_shape
irfftnd linalg.adjoint linalg.band_part linalg.cholesky linalg.cholesky_solve linalg.cross linalg.det linalg.diag
linalg.diag_part linalg.eig:eig linalg.eigh linalg.eigh_tridiagonal linalg.eigvals:eigvals linalg.eigvalsh
linalg.expm linalg.global_norm linalg.inv linalg.logdet linalg.lstsq linalg.lu linalg.lu_matrix_inverse
linalg.lu_reconstruct linalg.lu_solve linalg.matmul:matmul linalg.matrix_rank linalg.matrix_transpose
linalg.matvec linalg.normalize linalg.pinv linalg.qr linalg.set_diag linalg.solve linalg.sqrtm:matrix_square_root
linalg.svd linalg.tensor_diag linalg.tensor_diag_part linalg.trace linalg.triangular_solve
linalg.tridiagonal_matmul linalg.tridiagonal_solve linspace math.abs:abs math.accumulate_n math.acos:acos
math.acosh:acosh math.add:add math.add_n:add_n math.angle math.approx_max_k:nn.approx_max_k
math.approx_min_k:nn.approx_min_k math.argmax:argmax math.argmin:argmin math.asin:asin math.asinh:asinh
math.atan:atan math.atan2:atan2 math.atanh:atanh math.bessel_i0 math.bessel_i0e math.bessel_i1 math.bessel_i1e
math.betainc math.bincount math.ceil math.confusion_matrix math.conj math.cos:cos math.cosh:cosh
math.count_nonzero math.cumprod math.cumsum:cumsum math.cumulative_logsumexp math.digamma math.divide:divide
math.divide_no_nan math.equal:equal math.erf math.erfc math.erfcinv math.erfinv math.exp:exp math.expm1
math.floor:floor math.floordiv math.floormod:math.mod math.greater:greater math.greater_equal:greater_equal
math.igamma math.igammac math.imag math.in_top_k:nn.in_top_k math.invert_permutation math.is_finite math.is_inf
math.is_nan math.is_non_decreasing math.is_strictly_increasing
math.l2_normalize:linalg.l2_normalize:nn.l2_normalize math.lbeta math.less:less math.less_equal:less_equal
math.lgamma math.log math.log1p math.log_sigmoid math.logical_and:logical_and math.logical_not:logical_not
math.logical_or:logical_or math.logical_xor math.maximum:maximum math.minimum:minimum math.multiply:multiply
math.multiply_no_nan math.ndtri math.negative:negative math.nextafter math.not_equal:not_equal math.polygamma
math.polyval math.pow:pow math.real math.reciprocal math.reciprocal_no_nan math.reduce_all:reduce_all
math.reduce_any:reduce_any math.reduce_euclidean_norm math.reduce_logsumexp:reduce_logsumexp
math.reduce_max:reduce_max math.reduce_mean:reduce_mean math.reduce_min:reduce_min math.reduce_prod:reduce_prod
math.reduce_std math.reduce_sum:reduce_sum math.reduce_variance math.rint math.round:round math.rsqrt
math.scalar_mul:scalar_mul math.segment_max math.segment_mean math.segment_min math.segment_prod math.segment_sum
math.sigmoid:nn.sigmoid:sigmoid math.sign:sign math.sin:sin math.sinh:sinh math.sobol_sample
math.softplus:nn.softplus math.sqrt:sqrt math.square:square math.squared_difference math.subtract:subtract
math.tan:tan math.tanh:nn.tanh:tanh math.top_k:nn.top_k math.truediv:truediv math.unsorted_segment_max
math.unsorted_segment_mean math.unsorted_segment_min math.unsorted_segment_prod math.unsorted_segment_sqrt_n
math.unsorted_segment_sum math.xdivy math.xlog1py math.xlogy math.zero_fraction:nn.zero_fraction math.zeta
meshgrid nn.atrous_conv2d nn.atrous_conv2d_transpose nn.avg_pool nn.avg_pool1d nn.avg_pool2d nn.avg_pool3d
nn.batch_norm_with_global_normalization nn.batch_normalization nn.bias_add nn.collapse_repeated
nn.compute_accidental_hits nn.compute_average_loss nn.conv1d nn.conv1d_transpose nn.conv2d nn.conv2d_transpose
nn.conv3d nn.conv3d_transpose nn.conv_transpose nn.convolution nn.crelu nn.ctc_beam_search_decoder
nn.ctc_greedy_decoder nn.ctc_loss nn.ctc_unique_labels nn.depth_to_space nn.depthwise_conv2d
nn.depthwise_conv2d_backprop_filter nn.depthwise_conv2d_backprop_input nn.dilation2d nn.dropout nn.elu
nn.embedding_lookup nn.embedding_lookup_sparse nn.erosion2d nn.fractional_avg_pool nn.fractional_max_pool nn.gelu
nn.isotonic_regression nn.l2_loss nn.leaky_relu nn.local_response_normalization:nn.lrn nn.log_poisson_loss
nn.log_softmax:math.log_softmax nn.max_pool nn.max_pool1d nn.max_pool2d nn.max_pool3d nn.max_pool_with_argmax
nn.moments nn.nce_loss nn.normalize_moments nn.pool nn.relu nn.relu6 nn.safe_embedding_lookup_sparse
nn.sampled_softmax_loss nn.scale_regularization_loss nn.selu nn.separable_conv2d
nn.sigmoid_cross_entropy_with_logits nn.silu:nn.swish nn.softmax:math.softmax nn.softmax_cross_entropy_with_logits
nn.softsign:math.softsign nn.space_to_depth nn.sparse_softmax_cross_entropy_with_logits nn.sufficient_statistics
nn.weighted_cross_entropy_with_logits nn.weighted_moments nn.with_space_to_batch no_op norm:linalg.norm
numpy_function one_hot ones ones_like pad parallel_stack print py_function ragged.boolean_mask ragged.constant
ragged.cross ragged.cross_hashed ragged.map_flat_values ragged.range ragged.row_splits_to_segment_ids
ragged.segment_ids_to_row_splits ragged.stack ragged.stack_dynamic_partitions ragged_fill_empty_rows
ragged_fill_empty_rows_grad random.categorical
random.fixed_unigram_candidate_sampler:nn.fixed_unigram_candidate_sampler random.fold_in random.gamma
random.learned_unigram_candidate_sampler:nn.learned_unigram_candidate_sampler random.log_uniform_candidate_sampler
random.normal random.poisson random.shuffle random.split random.stateless_binomial random.stateless_categorical
random.stateless_gamma random.stateless_normal random.stateless_parameterized_truncated_normal
random.stateless_poisson random.stateless_truncated_normal random.stateless_uniform random.truncated_normal
random.uniform random.uniform_candidate_sampler random_index_shuffle range rank realdiv repeat reshape reverse
reverse_sequence rfftnd roll scan scatter_nd searchsorted sequence_mask shape shape_n signal.dct signal.fft
signal.fft2d signal.fft3d signal.fftshift signal.frame signal.hamming_window signal.hann_window signal.idct
signal.ifft signal.ifft2d signal.ifft3d signal.ifftshift signal.inverse_mdct signal.inverse_stft
signal.inverse_stft_window_fn signal.kaiser_bessel_derived_window signal.kaiser_window
signal.linear_to_mel_weight_matrix signal.mdct signal.mfccs_from_log_mel_spectrograms signal.overlap_and_add
signal.stft signal.vorbis_window size slice sort space_to_batch:nn.space_to_batch space_to_batch_nd
sparse.bincount sparse.map_values sparse.reshape split squeeze stack stop_gradient strided_slice
strings.as_string:as_string strings.bytes_split strings.format strings.join strings.length strings.lower
strings.ngrams strings.reduce_join strings.regex_full_match strings.regex_replace strings.split strings.strip
strings.substr strings.to_hash_bucket strings.to_hash_bucket_fast strings.to_hash_bucket_strong strings.to_number
strings.unicode_decode strings.unicode_decode_with_offsets strings.unicode_encode strings.unicode_script
strings.unicode_split strings.unicode_split_with_offsets strings.unicode_transcode strings.unsorted_segment_join
strings.upper tensor_scatter_nd_add tensor_scatter_nd_max tensor_scatter_nd_min tensor_scatter_nd_sub
tensor_scatter_nd_update tensordot:linalg.tensordot tile timestamp transpose truncatediv truncatemod tuple unique
unique_with_counts unravel_index unstack where zeros zeros_like
"""
