/*
 * tensor.h — the short names of fplab/tensor.h used inside the project.
 *
 * The tensor files' API is public as fplab/tensor.h, with the library's
 * prefix (fl_tensor_*, FL_TENSOR_*).  The commands, tests and fuzz
 * harnesses written before it was public spell the same functions, types
 * and constants without the prefix; this header maps those names onto the
 * public ones (types by typedef, functions and constants by macro), so
 * both spellings compile to the same symbols.  New code uses the public
 * names.
 */
#ifndef FPLAB_SRC_TENSOR_H
#define FPLAB_SRC_TENSOR_H

#include "fplab/tensor.h"

typedef fl_tensor tensor;
typedef fl_tensor_dtype tensor_dtype;
typedef fl_tensor_container tensor_container;
typedef fl_tensor_file tensor_file;
typedef fl_tensor_meta tensor_meta;
typedef fl_tensor_npy_info tensor_npy_info;

#define TENSOR_BF16 FL_TENSOR_BF16
#define TENSOR_BOOL FL_TENSOR_BOOL
#define TENSOR_DTYPE_COUNT FL_TENSOR_DTYPE_COUNT
#define TENSOR_F16 FL_TENSOR_F16
#define TENSOR_F32 FL_TENSOR_F32
#define TENSOR_F64 FL_TENSOR_F64
#define TENSOR_F8_E4M3 FL_TENSOR_F8_E4M3
#define TENSOR_F8_E5M2 FL_TENSOR_F8_E5M2
#define TENSOR_I16 FL_TENSOR_I16
#define TENSOR_I32 FL_TENSOR_I32
#define TENSOR_I64 FL_TENSOR_I64
#define TENSOR_I8 FL_TENSOR_I8
#define TENSOR_MAXDIM FL_TENSOR_MAXDIM
#define TENSOR_MODEL_KEY FL_TENSOR_MODEL_KEY
#define TENSOR_NPY FL_TENSOR_NPY
#define TENSOR_NPZ FL_TENSOR_NPZ
#define TENSOR_RAW FL_TENSOR_RAW
#define TENSOR_SAFETENSORS FL_TENSOR_SAFETENSORS
#define TENSOR_TEXT FL_TENSOR_TEXT
#define TENSOR_U16 FL_TENSOR_U16
#define TENSOR_U32 FL_TENSOR_U32
#define TENSOR_U64 FL_TENSOR_U64
#define TENSOR_U8 FL_TENSOR_U8
#define TENSOR_WRITE_DEFLATE FL_TENSOR_WRITE_DEFLATE
#define TENSOR_WRITE_NPY_ANY FL_TENSOR_WRITE_NPY_ANY
#define TENSOR_WRITE_ZIP64 FL_TENSOR_WRITE_ZIP64

#define tensor_container_name fl_tensor_container_name
#define tensor_dtype_for_format fl_tensor_dtype_for_format
#define tensor_dtype_name fl_tensor_dtype_name
#define tensor_dtype_size fl_tensor_dtype_size
#define tensor_dtype_st_name fl_tensor_dtype_st_name
#define tensor_file_close fl_tensor_file_close
#define tensor_file_container fl_tensor_file_container
#define tensor_file_count fl_tensor_file_count
#define tensor_file_get fl_tensor_file_get
#define tensor_file_key fl_tensor_file_key
#define tensor_file_keys_str fl_tensor_file_keys_str
#define tensor_file_meta fl_tensor_file_meta
#define tensor_file_meta_count fl_tensor_file_meta_count
#define tensor_file_meta_key fl_tensor_file_meta_key
#define tensor_file_meta_value fl_tensor_file_meta_value
#define tensor_file_open fl_tensor_file_open
#define tensor_file_open_mem fl_tensor_file_open_mem
#define tensor_format fl_tensor_format
#define tensor_format_storage fl_tensor_format_storage
#define tensor_free fl_tensor_free
#define tensor_from_bits fl_tensor_from_bits
#define tensor_get_bits fl_tensor_get_bits
#define tensor_npy_info_parse fl_tensor_npy_info_parse
#define tensor_read fl_tensor_read
#define tensor_read_any fl_tensor_read_any
#define tensor_read_model fl_tensor_read_model
#define tensor_read_raw fl_tensor_read_raw
#define tensor_read_text fl_tensor_read_text
#define tensor_shape_str fl_tensor_shape_str
#define tensor_spec_split fl_tensor_spec_split
#define tensor_to_bits fl_tensor_to_bits
#define tensor_write fl_tensor_write
#define tensor_write_fp fl_tensor_write_fp
#define tensor_write_meta fl_tensor_write_meta

#endif /* FPLAB_SRC_TENSOR_H */
