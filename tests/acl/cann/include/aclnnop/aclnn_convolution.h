/*
 * aclnnop/aclnn_convolution.h - aclnnConvolution, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha002/apiref/aolapi/context/aclnnConvolution.md
 */
#ifndef TNGC_TEST_ACLNN_CONVOLUTION_H
#define TNGC_TEST_ACLNN_CONVOLUTION_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnConvolutionGetWorkspaceSize(
    const aclTensor *input, const aclTensor *weight, const aclTensor *bias, const aclIntArray
    *stride, const aclIntArray *padding, const aclIntArray *dilation, bool transposed, const
    aclIntArray *outputPadding, const int64_t groups, aclTensor *output, int8_t cubeMathType,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnConvolution(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
