class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[16, 3, 3, 3]", clone_default: "f32[4, 3, 32, 32]", primals_4: "f32[16, 16, 3, 3]", primals_6: "f32[16]", primals_7: "f32[16]", primals_8: "f32[16, 16, 3, 3]", primals_10: "f32[16]", primals_11: "f32[16]", primals_12: "f32[32, 16, 3, 3]", primals_14: "f32[32, 32, 3, 3]", primals_16: "f32[32]", primals_17: "f32[32]", primals_18: "f32[32, 32, 3, 3]", primals_20: "f32[32]", primals_21: "f32[32]", primals_22: "f32[64, 32, 3, 3]", primals_24: "f32[64, 64, 3, 3]", primals_26: "f32[64]", primals_27: "f32[64]", primals_28: "f32[64, 64, 3, 3]", primals_30: "f32[64]", primals_31: "f32[64]", primals_32: "f32[64, 32, 2, 2]", primals_34: "f32[32, 32, 3, 3]", primals_36: "f32[32]", primals_37: "f32[32]", primals_38: "f32[32, 32, 3, 3]", primals_40: "f32[32]", primals_41: "f32[32]", primals_42: "f32[32, 16, 2, 2]", primals_44: "f32[16, 16, 3, 3]", primals_46: "f32[16]", primals_47: "f32[16]", primals_48: "f32[16, 16, 3, 3]", primals_50: "f32[16]", primals_51: "f32[16]", primals_52: "f32[3, 16, 1, 1]", convolution: "f32[4, 16, 32, 32]", convolution_1: "f32[4, 16, 32, 32]", getitem: "f32[4, 8, 1, 1]", getitem_1: "f32[4, 8, 1, 1]", convolution_2: "f32[4, 16, 32, 32]", getitem_2: "f32[4, 8, 1, 1]", getitem_3: "f32[4, 8, 1, 1]", convolution_3: "f32[4, 32, 16, 16]", convolution_4: "f32[4, 32, 16, 16]", getitem_4: "f32[4, 8, 1, 1]", getitem_5: "f32[4, 8, 1, 1]", convolution_5: "f32[4, 32, 16, 16]", getitem_6: "f32[4, 8, 1, 1]", getitem_7: "f32[4, 8, 1, 1]", clone_default_22: "f32[4, 64, 8, 8]", convolution_7: "f32[4, 64, 8, 8]", getitem_8: "f32[4, 8, 1, 1]", getitem_9: "f32[4, 8, 1, 1]", convolution_8: "f32[4, 64, 8, 8]", getitem_10: "f32[4, 8, 1, 1]", getitem_11: "f32[4, 8, 1, 1]", clone_default_27: "f32[4, 32, 16, 16]", convolution_10: "f32[4, 32, 16, 16]", getitem_12: "f32[4, 8, 1, 1]", getitem_13: "f32[4, 8, 1, 1]", convolution_11: "f32[4, 32, 16, 16]", getitem_14: "f32[4, 8, 1, 1]", getitem_15: "f32[4, 8, 1, 1]", clone_default_39: "f32[4, 16, 32, 32]", convolution_13: "f32[4, 16, 32, 32]", getitem_16: "f32[4, 8, 1, 1]", getitem_17: "f32[4, 8, 1, 1]", convolution_14: "f32[4, 16, 32, 32]", getitem_18: "f32[4, 8, 1, 1]", getitem_19: "f32[4, 8, 1, 1]", mul_40: "f32[4, 3, 32, 32]", tangents_1: "f32[]"):
        # File: /work/main/bessemer/zoo/small.py:124 in forward, code: return F.mse_loss(self.head(h), target)
        mul_41: "f32[4, 3, 32, 32]" = torch.ops.aten.mul.Tensor(mul_40, tangents_1);  mul_40 = tangents_1 = None
        clone_default_50: "f32[4, 3, 32, 32]" = torch.ops.aten.clone.default(mul_41, memory_format = torch.channels_last);  mul_41 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        add_29: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_18, 1e-05);  getitem_18 = None
        rsqrt_9: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_29);  add_29 = None
        view_28: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_50, [1, 8, 2, 1])
        mul_36: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_9, view_28);  view_28 = None
        as_strided_18: "f32[4, 16]" = torch.ops.aten.view.default(mul_36, [4, 16])
        unsqueeze_36: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_18, 2);  as_strided_18 = None
        unsqueeze_37: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_36, 3);  unsqueeze_36 = None
        mul_38: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_14, unsqueeze_37);  unsqueeze_37 = None
        neg_9: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_19)
        mul_37: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_9, mul_36);  neg_9 = mul_36 = None
        view_29: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_51, [1, 8, 2, 1]);  primals_51 = None
        add_30: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_37, view_29);  mul_37 = view_29 = None
        as_strided_19: "f32[4, 16]" = torch.ops.aten.view.default(add_30, [4, 16]);  add_30 = None
        unsqueeze_38: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_19, 2);  as_strided_19 = None
        unsqueeze_39: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_38, 3);  unsqueeze_38 = None
        add_31: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_38, unsqueeze_39);  mul_38 = unsqueeze_39 = None
        sigmoid_9: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_31)
        mul_39: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_31, sigmoid_9);  sigmoid_9 = None
        clone_default_47: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_39, memory_format = torch.channels_last);  mul_39 = None

        # File: /work/main/bessemer/zoo/small.py:124 in forward, code: return F.mse_loss(self.head(h), target)
        convolution_backward = torch.ops.aten.convolution_backward.default(clone_default_50, clone_default_47, primals_52, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_50 = clone_default_47 = primals_52 = None
        getitem_20: "f32[4, 16, 32, 32]" = convolution_backward[0]
        getitem_21: "f32[3, 16, 1, 1]" = convolution_backward[1]
        clone_default_53: "f32[3, 16, 1, 1]" = torch.ops.aten.clone.default(getitem_21, memory_format = torch.contiguous_format);  getitem_21 = None
        getitem_22: "f32[3]" = convolution_backward[2];  convolution_backward = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        sigmoid_10: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_31)
        mul_42: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(getitem_20, sigmoid_10);  getitem_20 = None
        sub_2: "f32[4, 16, 32, 32]" = torch.ops.aten.sub.Tensor(1, sigmoid_10);  sigmoid_10 = None
        mul_43: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_31, sub_2);  add_31 = sub_2 = None
        add_32: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_43, 1);  mul_43 = None
        mul_44: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_42, add_32);  mul_42 = add_32 = None
        mul_45: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_44, convolution_14)
        view_default_8: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_45, [4, 16, 1024]);  mul_45 = None
        sum_1: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_8, [2]);  view_default_8 = None
        view_default_9: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_44, [4, 16, 1024])
        sum_2: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_9, [2]);  view_default_9 = None
        unsqueeze_40: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_50, 0)
        mul_46: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_1, unsqueeze_40);  unsqueeze_40 = None
        view_32: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_46, [4, 8, 2]);  mul_46 = None
        sum_3: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_32, [2]);  view_32 = None
        unsqueeze_41: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_50, 0)
        mul_47: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_2, unsqueeze_41);  unsqueeze_41 = None
        view_33: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_47, [4, 8, 2]);  mul_47 = None
        sum_4: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_33, [2]);  view_33 = None
        squeeze_36: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_19, [3]);  getitem_19 = None
        squeeze_37: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_36, [2]);  squeeze_36 = None
        alias_18: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_37);  squeeze_37 = None
        alias_20: "f32[4, 8]" = torch.ops.aten.alias.default(alias_18);  alias_18 = None
        mul_49: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_4, alias_20)
        sub_3: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_49, sum_3);  mul_49 = sum_3 = None
        squeeze_38: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_9, [3]);  rsqrt_9 = None
        squeeze_39: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_38, [2]);  squeeze_38 = None
        alias_19: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_39);  squeeze_39 = None
        alias_21: "f32[4, 8]" = torch.ops.aten.alias.default(alias_19);  alias_19 = None
        mul_50: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_3, alias_21);  sub_3 = None
        mul_51: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_50, alias_21);  mul_50 = None
        mul_52: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_51, alias_21);  mul_51 = None
        mul_53: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_52, 0.00048828125);  mul_52 = None
        neg_10: "f32[4, 8]" = torch.ops.aten.neg.default(mul_53)
        mul_54: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_10, alias_20);  neg_10 = None
        mul_55: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_4, alias_21);  sum_4 = None
        mul_56: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_55, 0.00048828125);  mul_55 = None
        sub_4: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_54, mul_56);  mul_54 = mul_56 = None
        unsqueeze_44: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_53, -1);  mul_53 = None
        unsqueeze_45: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_44, -1);  unsqueeze_44 = None
        unsqueeze_46: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_4, -1);  sub_4 = None
        unsqueeze_47: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_46, -1);  unsqueeze_46 = None
        view_default_10: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(mul_44, [4, 8, 2, 1024]);  mul_44 = None
        unsqueeze_42: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_21, -1)
        view_34: "f32[1, 8, 2]" = torch.ops.aten.view.default(primals_50, [1, 8, 2]);  primals_50 = None
        mul_48: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(unsqueeze_42, view_34);  unsqueeze_42 = view_34 = None
        unsqueeze_43: "f32[4, 8, 2, 1]" = torch.ops.aten.unsqueeze.default(mul_48, -1);  mul_48 = None
        mul_57: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_10, unsqueeze_43);  view_default_10 = unsqueeze_43 = None
        view_default_11: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_14, [4, 8, 2, 1024]);  convolution_14 = None
        mul_58: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_11, unsqueeze_45);  view_default_11 = unsqueeze_45 = None
        add_33: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(mul_57, mul_58);  mul_57 = mul_58 = None
        add_34: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(add_33, unsqueeze_47);  add_33 = unsqueeze_47 = None
        view_default_12: "f32[4, 16, 32, 32]" = torch.ops.aten.view.default(add_34, [4, 16, 32, 32]);  add_34 = None
        clone_default_54: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(view_default_12, memory_format = torch.channels_last);  view_default_12 = None
        view_38: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_1, [4, 8, 2]);  sum_1 = None
        view_39: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_2, [4, 8, 2])
        unsqueeze_48: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_20, -1);  alias_20 = None
        mul_59: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(view_39, unsqueeze_48);  view_39 = unsqueeze_48 = None
        sub_5: "f32[4, 8, 2]" = torch.ops.aten.sub.Tensor(view_38, mul_59);  view_38 = mul_59 = None
        unsqueeze_49: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_21, -1);  alias_21 = None
        mul_60: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(sub_5, unsqueeze_49);  sub_5 = unsqueeze_49 = None
        sum_5: "f32[8, 2]" = torch.ops.aten.sum.dim_IntList(mul_60, [0]);  mul_60 = None
        view_40: "f32[16]" = torch.ops.aten.view.default(sum_5, [16]);  sum_5 = None
        sum_6: "f32[16]" = torch.ops.aten.sum.dim_IntList(sum_2, [0]);  sum_2 = None
        add_26: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_16, 1e-05);  getitem_16 = None
        rsqrt_8: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_26);  add_26 = None
        view_25: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_46, [1, 8, 2, 1])
        mul_32: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_8, view_25);  view_25 = None
        as_strided_16: "f32[4, 16]" = torch.ops.aten.view.default(mul_32, [4, 16])
        unsqueeze_32: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_16, 2);  as_strided_16 = None
        unsqueeze_33: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_32, 3);  unsqueeze_32 = None
        mul_34: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_13, unsqueeze_33);  unsqueeze_33 = None
        neg_8: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_17)
        mul_33: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_8, mul_32);  neg_8 = mul_32 = None
        view_26: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_47, [1, 8, 2, 1]);  primals_47 = None
        add_27: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_33, view_26);  mul_33 = view_26 = None
        as_strided_17: "f32[4, 16]" = torch.ops.aten.view.default(add_27, [4, 16]);  add_27 = None
        unsqueeze_34: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_17, 2);  as_strided_17 = None
        unsqueeze_35: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_34, 3);  unsqueeze_34 = None
        add_28: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_34, unsqueeze_35);  mul_34 = unsqueeze_35 = None
        sigmoid_8: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_28)
        mul_35: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_28, sigmoid_8);  sigmoid_8 = None
        clone_default_43: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_35, memory_format = torch.channels_last);  mul_35 = None

        # No stacktrace found for following nodes
        clone_default_45: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_48, memory_format = torch.channels_last);  primals_48 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_1 = torch.ops.aten.convolution_backward.default(clone_default_54, clone_default_43, clone_default_45, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_54 = clone_default_43 = clone_default_45 = None
        getitem_23: "f32[4, 16, 32, 32]" = convolution_backward_1[0]
        getitem_24: "f32[16, 16, 3, 3]" = convolution_backward_1[1]
        clone_default_57: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(getitem_24, memory_format = torch.contiguous_format);  getitem_24 = None
        getitem_25: "f32[16]" = convolution_backward_1[2];  convolution_backward_1 = None
        sigmoid_11: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_28)
        mul_61: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(getitem_23, sigmoid_11);  getitem_23 = None
        sub_6: "f32[4, 16, 32, 32]" = torch.ops.aten.sub.Tensor(1, sigmoid_11);  sigmoid_11 = None
        mul_62: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_28, sub_6);  add_28 = sub_6 = None
        add_35: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_62, 1);  mul_62 = None
        mul_63: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_61, add_35);  mul_61 = add_35 = None
        mul_64: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_63, convolution_13)
        view_default_13: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_64, [4, 16, 1024]);  mul_64 = None
        sum_7: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_13, [2]);  view_default_13 = None
        view_default_14: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_63, [4, 16, 1024])
        sum_8: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_14, [2]);  view_default_14 = None
        unsqueeze_50: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_46, 0)
        mul_65: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_7, unsqueeze_50);  unsqueeze_50 = None
        view_43: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_65, [4, 8, 2]);  mul_65 = None
        sum_9: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_43, [2]);  view_43 = None
        unsqueeze_51: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_46, 0)
        mul_66: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_8, unsqueeze_51);  unsqueeze_51 = None
        view_44: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_66, [4, 8, 2]);  mul_66 = None
        sum_10: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_44, [2]);  view_44 = None
        squeeze_32: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_17, [3]);  getitem_17 = None
        squeeze_33: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_32, [2]);  squeeze_32 = None
        alias_16: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_33);  squeeze_33 = None
        alias_22: "f32[4, 8]" = torch.ops.aten.alias.default(alias_16);  alias_16 = None
        mul_68: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_10, alias_22)
        sub_7: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_68, sum_9);  mul_68 = sum_9 = None
        squeeze_34: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_8, [3]);  rsqrt_8 = None
        squeeze_35: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_34, [2]);  squeeze_34 = None
        alias_17: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_35);  squeeze_35 = None
        alias_23: "f32[4, 8]" = torch.ops.aten.alias.default(alias_17);  alias_17 = None
        mul_69: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_7, alias_23);  sub_7 = None
        mul_70: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_69, alias_23);  mul_69 = None
        mul_71: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_70, alias_23);  mul_70 = None
        mul_72: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_71, 0.00048828125);  mul_71 = None
        neg_11: "f32[4, 8]" = torch.ops.aten.neg.default(mul_72)
        mul_73: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_11, alias_22);  neg_11 = None
        mul_74: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_10, alias_23);  sum_10 = None
        mul_75: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_74, 0.00048828125);  mul_74 = None
        sub_8: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_73, mul_75);  mul_73 = mul_75 = None
        unsqueeze_54: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_72, -1);  mul_72 = None
        unsqueeze_55: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_54, -1);  unsqueeze_54 = None
        unsqueeze_56: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_8, -1);  sub_8 = None
        unsqueeze_57: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_56, -1);  unsqueeze_56 = None
        view_default_15: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(mul_63, [4, 8, 2, 1024]);  mul_63 = None
        unsqueeze_52: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_23, -1)
        view_45: "f32[1, 8, 2]" = torch.ops.aten.view.default(primals_46, [1, 8, 2]);  primals_46 = None
        mul_67: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(unsqueeze_52, view_45);  unsqueeze_52 = view_45 = None
        unsqueeze_53: "f32[4, 8, 2, 1]" = torch.ops.aten.unsqueeze.default(mul_67, -1);  mul_67 = None
        mul_76: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_15, unsqueeze_53);  view_default_15 = unsqueeze_53 = None
        view_default_16: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_13, [4, 8, 2, 1024]);  convolution_13 = None
        mul_77: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_16, unsqueeze_55);  view_default_16 = unsqueeze_55 = None
        add_36: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(mul_76, mul_77);  mul_76 = mul_77 = None
        add_37: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(add_36, unsqueeze_57);  add_36 = unsqueeze_57 = None
        view_default_17: "f32[4, 16, 32, 32]" = torch.ops.aten.view.default(add_37, [4, 16, 32, 32]);  add_37 = None
        clone_default_58: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(view_default_17, memory_format = torch.channels_last);  view_default_17 = None
        view_49: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_7, [4, 8, 2]);  sum_7 = None
        view_50: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_8, [4, 8, 2])
        unsqueeze_58: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_22, -1);  alias_22 = None
        mul_78: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(view_50, unsqueeze_58);  view_50 = unsqueeze_58 = None
        sub_9: "f32[4, 8, 2]" = torch.ops.aten.sub.Tensor(view_49, mul_78);  view_49 = mul_78 = None
        unsqueeze_59: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_23, -1);  alias_23 = None
        mul_79: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(sub_9, unsqueeze_59);  sub_9 = unsqueeze_59 = None
        sum_11: "f32[8, 2]" = torch.ops.aten.sum.dim_IntList(mul_79, [0]);  mul_79 = None
        view_51: "f32[16]" = torch.ops.aten.view.default(sum_11, [16]);  sum_11 = None
        sum_12: "f32[16]" = torch.ops.aten.sum.dim_IntList(sum_8, [0]);  sum_8 = None

        # No stacktrace found for following nodes
        clone_default_41: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_44, memory_format = torch.channels_last);  primals_44 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_2 = torch.ops.aten.convolution_backward.default(clone_default_58, clone_default_39, clone_default_41, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_58 = clone_default_39 = clone_default_41 = None
        getitem_26: "f32[4, 16, 32, 32]" = convolution_backward_2[0]
        getitem_27: "f32[16, 16, 3, 3]" = convolution_backward_2[1]
        clone_default_61: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(getitem_27, memory_format = torch.contiguous_format);  getitem_27 = None
        getitem_28: "f32[16]" = convolution_backward_2[2];  convolution_backward_2 = None
        add_22: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_14, 1e-05);  getitem_14 = None
        rsqrt_7: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_22);  add_22 = None
        view_22: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_40, [1, 8, 4, 1])
        mul_28: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_7, view_22);  view_22 = None
        as_strided_14: "f32[4, 32]" = torch.ops.aten.view.default(mul_28, [4, 32])
        unsqueeze_28: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_14, 2);  as_strided_14 = None
        unsqueeze_29: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_28, 3);  unsqueeze_28 = None
        mul_30: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_11, unsqueeze_29);  unsqueeze_29 = None
        neg_7: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_15)
        mul_29: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_7, mul_28);  neg_7 = mul_28 = None
        view_23: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_41, [1, 8, 4, 1]);  primals_41 = None
        add_23: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_29, view_23);  mul_29 = view_23 = None
        as_strided_15: "f32[4, 32]" = torch.ops.aten.view.default(add_23, [4, 32]);  add_23 = None
        unsqueeze_30: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_15, 2);  as_strided_15 = None
        unsqueeze_31: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_30, 3);  unsqueeze_30 = None
        add_24: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_30, unsqueeze_31);  mul_30 = unsqueeze_31 = None
        sigmoid_7: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_24)
        mul_31: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_24, sigmoid_7);  sigmoid_7 = None
        clone_default_35: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_31, memory_format = torch.channels_last);  mul_31 = None

        # No stacktrace found for following nodes
        clone_default_37: "f32[32, 16, 2, 2]" = torch.ops.aten.clone.default(primals_42, memory_format = torch.channels_last);  primals_42 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_3 = torch.ops.aten.convolution_backward.default(getitem_26, clone_default_35, clone_default_37, [16], [2, 2], [0, 0], [1, 1], True, [0, 0], 1, [True, True, True]);  clone_default_35 = clone_default_37 = None
        getitem_29: "f32[4, 32, 16, 16]" = convolution_backward_3[0]
        getitem_30: "f32[32, 16, 2, 2]" = convolution_backward_3[1]
        clone_default_63: "f32[32, 16, 2, 2]" = torch.ops.aten.clone.default(getitem_30, memory_format = torch.contiguous_format);  getitem_30 = None
        getitem_31: "f32[16]" = convolution_backward_3[2];  convolution_backward_3 = None
        sigmoid_12: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_24)
        mul_80: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(getitem_29, sigmoid_12);  getitem_29 = None
        sub_10: "f32[4, 32, 16, 16]" = torch.ops.aten.sub.Tensor(1, sigmoid_12);  sigmoid_12 = None
        mul_81: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_24, sub_10);  add_24 = sub_10 = None
        add_38: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_81, 1);  mul_81 = None
        mul_82: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_80, add_38);  mul_80 = add_38 = None
        mul_83: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_82, convolution_11)
        view_default_18: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_83, [4, 32, 256]);  mul_83 = None
        sum_13: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_18, [2]);  view_default_18 = None
        view_default_19: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_82, [4, 32, 256])
        sum_14: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_19, [2]);  view_default_19 = None
        unsqueeze_60: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_40, 0)
        mul_84: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_13, unsqueeze_60);  unsqueeze_60 = None
        view_54: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_84, [4, 8, 4]);  mul_84 = None
        sum_15: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_54, [2]);  view_54 = None
        unsqueeze_61: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_40, 0)
        mul_85: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_14, unsqueeze_61);  unsqueeze_61 = None
        view_55: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_85, [4, 8, 4]);  mul_85 = None
        sum_16: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_55, [2]);  view_55 = None
        squeeze_28: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_15, [3]);  getitem_15 = None
        squeeze_29: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_28, [2]);  squeeze_28 = None
        alias_14: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_29);  squeeze_29 = None
        alias_24: "f32[4, 8]" = torch.ops.aten.alias.default(alias_14);  alias_14 = None
        mul_87: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_16, alias_24)
        sub_11: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_87, sum_15);  mul_87 = sum_15 = None
        squeeze_30: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_7, [3]);  rsqrt_7 = None
        squeeze_31: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_30, [2]);  squeeze_30 = None
        alias_15: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_31);  squeeze_31 = None
        alias_25: "f32[4, 8]" = torch.ops.aten.alias.default(alias_15);  alias_15 = None
        mul_88: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_11, alias_25);  sub_11 = None
        mul_89: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_88, alias_25);  mul_88 = None
        mul_90: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_89, alias_25);  mul_89 = None
        mul_91: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_90, 0.0009765625);  mul_90 = None
        neg_12: "f32[4, 8]" = torch.ops.aten.neg.default(mul_91)
        mul_92: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_12, alias_24);  neg_12 = None
        mul_93: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_16, alias_25);  sum_16 = None
        mul_94: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_93, 0.0009765625);  mul_93 = None
        sub_12: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_92, mul_94);  mul_92 = mul_94 = None
        unsqueeze_64: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_91, -1);  mul_91 = None
        unsqueeze_65: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_64, -1);  unsqueeze_64 = None
        unsqueeze_66: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_12, -1);  sub_12 = None
        unsqueeze_67: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_66, -1);  unsqueeze_66 = None
        view_default_20: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(mul_82, [4, 8, 4, 256]);  mul_82 = None
        unsqueeze_62: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_25, -1)
        view_56: "f32[1, 8, 4]" = torch.ops.aten.view.default(primals_40, [1, 8, 4]);  primals_40 = None
        mul_86: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(unsqueeze_62, view_56);  unsqueeze_62 = view_56 = None
        unsqueeze_63: "f32[4, 8, 4, 1]" = torch.ops.aten.unsqueeze.default(mul_86, -1);  mul_86 = None
        mul_95: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_20, unsqueeze_63);  view_default_20 = unsqueeze_63 = None
        view_default_21: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_11, [4, 8, 4, 256]);  convolution_11 = None
        mul_96: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_21, unsqueeze_65);  view_default_21 = unsqueeze_65 = None
        add_39: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(mul_95, mul_96);  mul_95 = mul_96 = None
        add_40: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(add_39, unsqueeze_67);  add_39 = unsqueeze_67 = None
        view_default_22: "f32[4, 32, 16, 16]" = torch.ops.aten.view.default(add_40, [4, 32, 16, 16]);  add_40 = None
        clone_default_64: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(view_default_22, memory_format = torch.channels_last);  view_default_22 = None
        view_60: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_13, [4, 8, 4]);  sum_13 = None
        view_61: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_14, [4, 8, 4])
        unsqueeze_68: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_24, -1);  alias_24 = None
        mul_97: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(view_61, unsqueeze_68);  view_61 = unsqueeze_68 = None
        sub_13: "f32[4, 8, 4]" = torch.ops.aten.sub.Tensor(view_60, mul_97);  view_60 = mul_97 = None
        unsqueeze_69: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_25, -1);  alias_25 = None
        mul_98: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(sub_13, unsqueeze_69);  sub_13 = unsqueeze_69 = None
        sum_17: "f32[8, 4]" = torch.ops.aten.sum.dim_IntList(mul_98, [0]);  mul_98 = None
        view_62: "f32[32]" = torch.ops.aten.view.default(sum_17, [32]);  sum_17 = None
        sum_18: "f32[32]" = torch.ops.aten.sum.dim_IntList(sum_14, [0]);  sum_14 = None
        add_19: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_12, 1e-05);  getitem_12 = None
        rsqrt_6: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_19);  add_19 = None
        view_19: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_36, [1, 8, 4, 1])
        mul_24: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_6, view_19);  view_19 = None
        as_strided_12: "f32[4, 32]" = torch.ops.aten.view.default(mul_24, [4, 32])
        unsqueeze_24: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_12, 2);  as_strided_12 = None
        unsqueeze_25: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_24, 3);  unsqueeze_24 = None
        mul_26: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_10, unsqueeze_25);  unsqueeze_25 = None
        neg_6: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_13)
        mul_25: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_6, mul_24);  neg_6 = mul_24 = None
        view_20: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_37, [1, 8, 4, 1]);  primals_37 = None
        add_20: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_25, view_20);  mul_25 = view_20 = None
        as_strided_13: "f32[4, 32]" = torch.ops.aten.view.default(add_20, [4, 32]);  add_20 = None
        unsqueeze_26: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_13, 2);  as_strided_13 = None
        unsqueeze_27: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_26, 3);  unsqueeze_26 = None
        add_21: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_26, unsqueeze_27);  mul_26 = unsqueeze_27 = None
        sigmoid_6: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_21)
        mul_27: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_21, sigmoid_6);  sigmoid_6 = None
        clone_default_31: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_27, memory_format = torch.channels_last);  mul_27 = None

        # No stacktrace found for following nodes
        clone_default_33: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_38, memory_format = torch.channels_last);  primals_38 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_4 = torch.ops.aten.convolution_backward.default(clone_default_64, clone_default_31, clone_default_33, [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_64 = clone_default_31 = clone_default_33 = None
        getitem_32: "f32[4, 32, 16, 16]" = convolution_backward_4[0]
        getitem_33: "f32[32, 32, 3, 3]" = convolution_backward_4[1]
        clone_default_67: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(getitem_33, memory_format = torch.contiguous_format);  getitem_33 = None
        getitem_34: "f32[32]" = convolution_backward_4[2];  convolution_backward_4 = None
        sigmoid_13: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_21)
        mul_99: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(getitem_32, sigmoid_13);  getitem_32 = None
        sub_14: "f32[4, 32, 16, 16]" = torch.ops.aten.sub.Tensor(1, sigmoid_13);  sigmoid_13 = None
        mul_100: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_21, sub_14);  add_21 = sub_14 = None
        add_41: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_100, 1);  mul_100 = None
        mul_101: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_99, add_41);  mul_99 = add_41 = None
        mul_102: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_101, convolution_10)
        view_default_23: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_102, [4, 32, 256]);  mul_102 = None
        sum_19: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_23, [2]);  view_default_23 = None
        view_default_24: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_101, [4, 32, 256])
        sum_20: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_24, [2]);  view_default_24 = None
        unsqueeze_70: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_36, 0)
        mul_103: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_19, unsqueeze_70);  unsqueeze_70 = None
        view_65: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_103, [4, 8, 4]);  mul_103 = None
        sum_21: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_65, [2]);  view_65 = None
        unsqueeze_71: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_36, 0)
        mul_104: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_20, unsqueeze_71);  unsqueeze_71 = None
        view_66: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_104, [4, 8, 4]);  mul_104 = None
        sum_22: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_66, [2]);  view_66 = None
        squeeze_24: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_13, [3]);  getitem_13 = None
        squeeze_25: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_24, [2]);  squeeze_24 = None
        alias_12: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_25);  squeeze_25 = None
        alias_26: "f32[4, 8]" = torch.ops.aten.alias.default(alias_12);  alias_12 = None
        mul_106: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_22, alias_26)
        sub_15: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_106, sum_21);  mul_106 = sum_21 = None
        squeeze_26: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_6, [3]);  rsqrt_6 = None
        squeeze_27: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_26, [2]);  squeeze_26 = None
        alias_13: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_27);  squeeze_27 = None
        alias_27: "f32[4, 8]" = torch.ops.aten.alias.default(alias_13);  alias_13 = None
        mul_107: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_15, alias_27);  sub_15 = None
        mul_108: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_107, alias_27);  mul_107 = None
        mul_109: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_108, alias_27);  mul_108 = None
        mul_110: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_109, 0.0009765625);  mul_109 = None
        neg_13: "f32[4, 8]" = torch.ops.aten.neg.default(mul_110)
        mul_111: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_13, alias_26);  neg_13 = None
        mul_112: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_22, alias_27);  sum_22 = None
        mul_113: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_112, 0.0009765625);  mul_112 = None
        sub_16: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_111, mul_113);  mul_111 = mul_113 = None
        unsqueeze_74: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_110, -1);  mul_110 = None
        unsqueeze_75: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_74, -1);  unsqueeze_74 = None
        unsqueeze_76: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_16, -1);  sub_16 = None
        unsqueeze_77: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_76, -1);  unsqueeze_76 = None
        view_default_25: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(mul_101, [4, 8, 4, 256]);  mul_101 = None
        unsqueeze_72: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_27, -1)
        view_67: "f32[1, 8, 4]" = torch.ops.aten.view.default(primals_36, [1, 8, 4]);  primals_36 = None
        mul_105: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(unsqueeze_72, view_67);  unsqueeze_72 = view_67 = None
        unsqueeze_73: "f32[4, 8, 4, 1]" = torch.ops.aten.unsqueeze.default(mul_105, -1);  mul_105 = None
        mul_114: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_25, unsqueeze_73);  view_default_25 = unsqueeze_73 = None
        view_default_26: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_10, [4, 8, 4, 256]);  convolution_10 = None
        mul_115: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_26, unsqueeze_75);  view_default_26 = unsqueeze_75 = None
        add_42: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(mul_114, mul_115);  mul_114 = mul_115 = None
        add_43: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(add_42, unsqueeze_77);  add_42 = unsqueeze_77 = None
        view_default_27: "f32[4, 32, 16, 16]" = torch.ops.aten.view.default(add_43, [4, 32, 16, 16]);  add_43 = None
        clone_default_68: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(view_default_27, memory_format = torch.channels_last);  view_default_27 = None
        view_71: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_19, [4, 8, 4]);  sum_19 = None
        view_72: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_20, [4, 8, 4])
        unsqueeze_78: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_26, -1);  alias_26 = None
        mul_116: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(view_72, unsqueeze_78);  view_72 = unsqueeze_78 = None
        sub_17: "f32[4, 8, 4]" = torch.ops.aten.sub.Tensor(view_71, mul_116);  view_71 = mul_116 = None
        unsqueeze_79: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_27, -1);  alias_27 = None
        mul_117: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(sub_17, unsqueeze_79);  sub_17 = unsqueeze_79 = None
        sum_23: "f32[8, 4]" = torch.ops.aten.sum.dim_IntList(mul_117, [0]);  mul_117 = None
        view_73: "f32[32]" = torch.ops.aten.view.default(sum_23, [32]);  sum_23 = None
        sum_24: "f32[32]" = torch.ops.aten.sum.dim_IntList(sum_20, [0]);  sum_20 = None

        # No stacktrace found for following nodes
        clone_default_29: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_34, memory_format = torch.channels_last);  primals_34 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_5 = torch.ops.aten.convolution_backward.default(clone_default_68, clone_default_27, clone_default_29, [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_68 = clone_default_27 = clone_default_29 = None
        getitem_35: "f32[4, 32, 16, 16]" = convolution_backward_5[0]
        getitem_36: "f32[32, 32, 3, 3]" = convolution_backward_5[1]
        clone_default_71: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(getitem_36, memory_format = torch.contiguous_format);  getitem_36 = None
        getitem_37: "f32[32]" = convolution_backward_5[2];  convolution_backward_5 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        add_15: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_10, 1e-05);  getitem_10 = None
        rsqrt_5: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_15);  add_15 = None
        view_16: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_30, [1, 8, 8, 1])
        mul_20: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(rsqrt_5, view_16);  view_16 = None
        as_strided_10: "f32[4, 64]" = torch.ops.aten.view.default(mul_20, [4, 64])
        unsqueeze_20: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_10, 2);  as_strided_10 = None
        unsqueeze_21: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_20, 3);  unsqueeze_20 = None
        mul_22: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(convolution_8, unsqueeze_21);  unsqueeze_21 = None
        neg_5: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_11)
        mul_21: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(neg_5, mul_20);  neg_5 = mul_20 = None
        view_17: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_31, [1, 8, 8, 1]);  primals_31 = None
        add_16: "f32[4, 8, 8, 1]" = torch.ops.aten.add.Tensor(mul_21, view_17);  mul_21 = view_17 = None
        as_strided_11: "f32[4, 64]" = torch.ops.aten.view.default(add_16, [4, 64]);  add_16 = None
        unsqueeze_22: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_11, 2);  as_strided_11 = None
        unsqueeze_23: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_22, 3);  unsqueeze_22 = None
        add_17: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_22, unsqueeze_23);  mul_22 = unsqueeze_23 = None
        sigmoid_5: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_17)
        mul_23: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_17, sigmoid_5);  sigmoid_5 = None
        clone_default_23: "f32[4, 64, 8, 8]" = torch.ops.aten.clone.default(mul_23, memory_format = torch.channels_last);  mul_23 = None

        # No stacktrace found for following nodes
        clone_default_25: "f32[64, 32, 2, 2]" = torch.ops.aten.clone.default(primals_32, memory_format = torch.channels_last);  primals_32 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_backward_6 = torch.ops.aten.convolution_backward.default(getitem_35, clone_default_23, clone_default_25, [32], [2, 2], [0, 0], [1, 1], True, [0, 0], 1, [True, True, True]);  clone_default_23 = clone_default_25 = None
        getitem_38: "f32[4, 64, 8, 8]" = convolution_backward_6[0]
        getitem_39: "f32[64, 32, 2, 2]" = convolution_backward_6[1]
        clone_default_73: "f32[64, 32, 2, 2]" = torch.ops.aten.clone.default(getitem_39, memory_format = torch.contiguous_format);  getitem_39 = None
        getitem_40: "f32[32]" = convolution_backward_6[2];  convolution_backward_6 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        sigmoid_14: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_17)
        mul_118: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(getitem_38, sigmoid_14);  getitem_38 = None
        sub_18: "f32[4, 64, 8, 8]" = torch.ops.aten.sub.Tensor(1, sigmoid_14);  sigmoid_14 = None
        mul_119: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_17, sub_18);  add_17 = sub_18 = None
        add_44: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_119, 1);  mul_119 = None
        mul_120: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(mul_118, add_44);  mul_118 = add_44 = None
        mul_121: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(mul_120, convolution_8)
        view_default_28: "f32[4, 64, 64]" = torch.ops.aten.view.default(mul_121, [4, 64, 64]);  mul_121 = None
        sum_25: "f32[4, 64]" = torch.ops.aten.sum.dim_IntList(view_default_28, [2]);  view_default_28 = None
        view_default_29: "f32[4, 64, 64]" = torch.ops.aten.view.default(mul_120, [4, 64, 64])
        sum_26: "f32[4, 64]" = torch.ops.aten.sum.dim_IntList(view_default_29, [2]);  view_default_29 = None
        unsqueeze_80: "f32[1, 64]" = torch.ops.aten.unsqueeze.default(primals_30, 0)
        mul_122: "f32[4, 64]" = torch.ops.aten.mul.Tensor(sum_25, unsqueeze_80);  unsqueeze_80 = None
        view_76: "f32[4, 8, 8]" = torch.ops.aten.view.default(mul_122, [4, 8, 8]);  mul_122 = None
        sum_27: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_76, [2]);  view_76 = None
        unsqueeze_81: "f32[1, 64]" = torch.ops.aten.unsqueeze.default(primals_30, 0)
        mul_123: "f32[4, 64]" = torch.ops.aten.mul.Tensor(sum_26, unsqueeze_81);  unsqueeze_81 = None
        view_77: "f32[4, 8, 8]" = torch.ops.aten.view.default(mul_123, [4, 8, 8]);  mul_123 = None
        sum_28: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_77, [2]);  view_77 = None
        squeeze_20: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_11, [3]);  getitem_11 = None
        squeeze_21: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_20, [2]);  squeeze_20 = None
        alias_10: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_21);  squeeze_21 = None
        alias_28: "f32[4, 8]" = torch.ops.aten.alias.default(alias_10);  alias_10 = None
        mul_125: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_28, alias_28)
        sub_19: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_125, sum_27);  mul_125 = sum_27 = None
        squeeze_22: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_5, [3]);  rsqrt_5 = None
        squeeze_23: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_22, [2]);  squeeze_22 = None
        alias_11: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_23);  squeeze_23 = None
        alias_29: "f32[4, 8]" = torch.ops.aten.alias.default(alias_11);  alias_11 = None
        mul_126: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_19, alias_29);  sub_19 = None
        mul_127: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_126, alias_29);  mul_126 = None
        mul_128: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_127, alias_29);  mul_127 = None
        mul_129: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_128, 0.001953125);  mul_128 = None
        neg_14: "f32[4, 8]" = torch.ops.aten.neg.default(mul_129)
        mul_130: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_14, alias_28);  neg_14 = None
        mul_131: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_28, alias_29);  sum_28 = None
        mul_132: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_131, 0.001953125);  mul_131 = None
        sub_20: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_130, mul_132);  mul_130 = mul_132 = None
        unsqueeze_84: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_129, -1);  mul_129 = None
        unsqueeze_85: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_84, -1);  unsqueeze_84 = None
        unsqueeze_86: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_20, -1);  sub_20 = None
        unsqueeze_87: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_86, -1);  unsqueeze_86 = None
        view_default_30: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(mul_120, [4, 8, 8, 64]);  mul_120 = None
        unsqueeze_82: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_29, -1)
        view_78: "f32[1, 8, 8]" = torch.ops.aten.view.default(primals_30, [1, 8, 8]);  primals_30 = None
        mul_124: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(unsqueeze_82, view_78);  unsqueeze_82 = view_78 = None
        unsqueeze_83: "f32[4, 8, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_124, -1);  mul_124 = None
        mul_133: "f32[4, 8, 8, 64]" = torch.ops.aten.mul.Tensor(view_default_30, unsqueeze_83);  view_default_30 = unsqueeze_83 = None
        view_80: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(convolution_8, [4, 8, 8, 64]);  convolution_8 = None
        mul_134: "f32[4, 8, 8, 64]" = torch.ops.aten.mul.Tensor(view_80, unsqueeze_85);  view_80 = unsqueeze_85 = None
        add_45: "f32[4, 8, 8, 64]" = torch.ops.aten.add.Tensor(mul_133, mul_134);  mul_133 = mul_134 = None
        add_46: "f32[4, 8, 8, 64]" = torch.ops.aten.add.Tensor(add_45, unsqueeze_87);  add_45 = unsqueeze_87 = None
        clone_default_185: "f32[4, 8, 8, 64]" = torch.ops.aten.clone.default(add_46, memory_format = torch.contiguous_format);  add_46 = None
        view_81: "f32[4, 64, 8, 8]" = torch.ops.aten.view.default(clone_default_185, [4, 64, 8, 8]);  clone_default_185 = None
        view_82: "f32[4, 8, 8]" = torch.ops.aten.view.default(sum_25, [4, 8, 8]);  sum_25 = None
        view_83: "f32[4, 8, 8]" = torch.ops.aten.view.default(sum_26, [4, 8, 8])
        unsqueeze_88: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_28, -1);  alias_28 = None
        mul_135: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(view_83, unsqueeze_88);  view_83 = unsqueeze_88 = None
        sub_21: "f32[4, 8, 8]" = torch.ops.aten.sub.Tensor(view_82, mul_135);  view_82 = mul_135 = None
        unsqueeze_89: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_29, -1);  alias_29 = None
        mul_136: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(sub_21, unsqueeze_89);  sub_21 = unsqueeze_89 = None
        sum_29: "f32[8, 8]" = torch.ops.aten.sum.dim_IntList(mul_136, [0]);  mul_136 = None
        view_84: "f32[64]" = torch.ops.aten.view.default(sum_29, [64]);  sum_29 = None
        sum_30: "f32[64]" = torch.ops.aten.sum.dim_IntList(sum_26, [0]);  sum_26 = None
        add_12: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_8, 1e-05);  getitem_8 = None
        rsqrt_4: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_12);  add_12 = None
        view_13: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_26, [1, 8, 8, 1])
        mul_16: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(rsqrt_4, view_13);  view_13 = None
        as_strided_8: "f32[4, 64]" = torch.ops.aten.view.default(mul_16, [4, 64])
        unsqueeze_16: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_8, 2);  as_strided_8 = None
        unsqueeze_17: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_16, 3);  unsqueeze_16 = None
        mul_18: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(convolution_7, unsqueeze_17);  unsqueeze_17 = None
        neg_4: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_9)
        mul_17: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(neg_4, mul_16);  neg_4 = mul_16 = None
        view_14: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_27, [1, 8, 8, 1]);  primals_27 = None
        add_13: "f32[4, 8, 8, 1]" = torch.ops.aten.add.Tensor(mul_17, view_14);  mul_17 = view_14 = None
        as_strided_9: "f32[4, 64]" = torch.ops.aten.view.default(add_13, [4, 64]);  add_13 = None
        unsqueeze_18: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_9, 2);  as_strided_9 = None
        unsqueeze_19: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_18, 3);  unsqueeze_18 = None
        add_14: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_18, unsqueeze_19);  mul_18 = unsqueeze_19 = None
        sigmoid_4: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_14)
        mul_19: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_14, sigmoid_4);  sigmoid_4 = None
        convolution_backward_7 = torch.ops.aten.convolution_backward.default(view_81, mul_19, primals_28, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  view_81 = mul_19 = primals_28 = None
        getitem_41: "f32[4, 64, 8, 8]" = convolution_backward_7[0]
        getitem_42: "f32[64, 64, 3, 3]" = convolution_backward_7[1]
        getitem_43: "f32[64]" = convolution_backward_7[2];  convolution_backward_7 = None
        sigmoid_15: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_14)
        mul_137: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(getitem_41, sigmoid_15);  getitem_41 = None
        sub_22: "f32[4, 64, 8, 8]" = torch.ops.aten.sub.Tensor(1, sigmoid_15);  sigmoid_15 = None
        mul_138: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_14, sub_22);  add_14 = sub_22 = None
        add_47: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_138, 1);  mul_138 = None
        mul_139: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(mul_137, add_47);  mul_137 = add_47 = None
        mul_140: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(mul_139, convolution_7)
        view_85: "f32[4, 64, 64]" = torch.ops.aten.view.default(mul_140, [4, 64, 64]);  mul_140 = None
        sum_31: "f32[4, 64]" = torch.ops.aten.sum.dim_IntList(view_85, [2]);  view_85 = None
        view_86: "f32[4, 64, 64]" = torch.ops.aten.view.default(mul_139, [4, 64, 64])
        sum_32: "f32[4, 64]" = torch.ops.aten.sum.dim_IntList(view_86, [2]);  view_86 = None
        unsqueeze_90: "f32[1, 64]" = torch.ops.aten.unsqueeze.default(primals_26, 0)
        mul_141: "f32[4, 64]" = torch.ops.aten.mul.Tensor(sum_31, unsqueeze_90);  unsqueeze_90 = None
        view_87: "f32[4, 8, 8]" = torch.ops.aten.view.default(mul_141, [4, 8, 8]);  mul_141 = None
        sum_33: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_87, [2]);  view_87 = None
        unsqueeze_91: "f32[1, 64]" = torch.ops.aten.unsqueeze.default(primals_26, 0)
        mul_142: "f32[4, 64]" = torch.ops.aten.mul.Tensor(sum_32, unsqueeze_91);  unsqueeze_91 = None
        view_88: "f32[4, 8, 8]" = torch.ops.aten.view.default(mul_142, [4, 8, 8]);  mul_142 = None
        sum_34: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_88, [2]);  view_88 = None
        squeeze_16: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_9, [3]);  getitem_9 = None
        squeeze_17: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_16, [2]);  squeeze_16 = None
        alias_8: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_17);  squeeze_17 = None
        alias_30: "f32[4, 8]" = torch.ops.aten.alias.default(alias_8);  alias_8 = None
        mul_144: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_34, alias_30)
        sub_23: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_144, sum_33);  mul_144 = sum_33 = None
        squeeze_18: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_4, [3]);  rsqrt_4 = None
        squeeze_19: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_18, [2]);  squeeze_18 = None
        alias_9: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_19);  squeeze_19 = None
        alias_31: "f32[4, 8]" = torch.ops.aten.alias.default(alias_9);  alias_9 = None
        mul_145: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_23, alias_31);  sub_23 = None
        mul_146: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_145, alias_31);  mul_145 = None
        mul_147: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_146, alias_31);  mul_146 = None
        mul_148: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_147, 0.001953125);  mul_147 = None
        neg_15: "f32[4, 8]" = torch.ops.aten.neg.default(mul_148)
        mul_149: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_15, alias_30);  neg_15 = None
        mul_150: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_34, alias_31);  sum_34 = None
        mul_151: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_150, 0.001953125);  mul_150 = None
        sub_24: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_149, mul_151);  mul_149 = mul_151 = None
        unsqueeze_94: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_148, -1);  mul_148 = None
        unsqueeze_95: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_94, -1);  unsqueeze_94 = None
        unsqueeze_96: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_24, -1);  sub_24 = None
        unsqueeze_97: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_96, -1);  unsqueeze_96 = None
        view_90: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(mul_139, [4, 8, 8, 64]);  mul_139 = None
        unsqueeze_92: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_31, -1)
        view_89: "f32[1, 8, 8]" = torch.ops.aten.view.default(primals_26, [1, 8, 8]);  primals_26 = None
        mul_143: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(unsqueeze_92, view_89);  unsqueeze_92 = view_89 = None
        unsqueeze_93: "f32[4, 8, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_143, -1);  mul_143 = None
        mul_152: "f32[4, 8, 8, 64]" = torch.ops.aten.mul.Tensor(view_90, unsqueeze_93);  view_90 = unsqueeze_93 = None
        view_91: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(convolution_7, [4, 8, 8, 64]);  convolution_7 = None
        mul_153: "f32[4, 8, 8, 64]" = torch.ops.aten.mul.Tensor(view_91, unsqueeze_95);  view_91 = unsqueeze_95 = None
        add_48: "f32[4, 8, 8, 64]" = torch.ops.aten.add.Tensor(mul_152, mul_153);  mul_152 = mul_153 = None
        add_49: "f32[4, 8, 8, 64]" = torch.ops.aten.add.Tensor(add_48, unsqueeze_97);  add_48 = unsqueeze_97 = None
        view_92: "f32[4, 64, 8, 8]" = torch.ops.aten.view.default(add_49, [4, 64, 8, 8]);  add_49 = None
        view_93: "f32[4, 8, 8]" = torch.ops.aten.view.default(sum_31, [4, 8, 8]);  sum_31 = None
        view_94: "f32[4, 8, 8]" = torch.ops.aten.view.default(sum_32, [4, 8, 8])
        unsqueeze_98: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_30, -1);  alias_30 = None
        mul_154: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(view_94, unsqueeze_98);  view_94 = unsqueeze_98 = None
        sub_25: "f32[4, 8, 8]" = torch.ops.aten.sub.Tensor(view_93, mul_154);  view_93 = mul_154 = None
        unsqueeze_99: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_31, -1);  alias_31 = None
        mul_155: "f32[4, 8, 8]" = torch.ops.aten.mul.Tensor(sub_25, unsqueeze_99);  sub_25 = unsqueeze_99 = None
        sum_35: "f32[8, 8]" = torch.ops.aten.sum.dim_IntList(mul_155, [0]);  mul_155 = None
        view_95: "f32[64]" = torch.ops.aten.view.default(sum_35, [64]);  sum_35 = None
        sum_36: "f32[64]" = torch.ops.aten.sum.dim_IntList(sum_32, [0]);  sum_32 = None
        convolution_backward_8 = torch.ops.aten.convolution_backward.default(view_92, clone_default_22, primals_24, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  view_92 = clone_default_22 = primals_24 = None
        getitem_44: "f32[4, 64, 8, 8]" = convolution_backward_8[0]
        clone_default_74: "f32[4, 64, 8, 8]" = torch.ops.aten.clone.default(getitem_44, memory_format = torch.channels_last);  getitem_44 = None
        getitem_45: "f32[64, 64, 3, 3]" = convolution_backward_8[1]
        getitem_46: "f32[64]" = convolution_backward_8[2];  convolution_backward_8 = None
        add_9: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_6, 1e-05);  getitem_6 = None
        rsqrt_3: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_9);  add_9 = None
        view_10: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_20, [1, 8, 4, 1])
        mul_12: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_3, view_10);  view_10 = None
        as_strided_6: "f32[4, 32]" = torch.ops.aten.view.default(mul_12, [4, 32])
        unsqueeze_12: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_6, 2);  as_strided_6 = None
        unsqueeze_13: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_12, 3);  unsqueeze_12 = None
        mul_14: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_5, unsqueeze_13);  unsqueeze_13 = None
        neg_3: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_7)
        mul_13: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_3, mul_12);  neg_3 = mul_12 = None
        view_11: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_21, [1, 8, 4, 1]);  primals_21 = None
        add_10: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_13, view_11);  mul_13 = view_11 = None
        as_strided_7: "f32[4, 32]" = torch.ops.aten.view.default(add_10, [4, 32]);  add_10 = None
        unsqueeze_14: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_7, 2);  as_strided_7 = None
        unsqueeze_15: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_14, 3);  unsqueeze_14 = None
        add_11: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_14, unsqueeze_15);  mul_14 = unsqueeze_15 = None
        sigmoid_3: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_11)
        mul_15: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_11, sigmoid_3);  sigmoid_3 = None
        clone_default_19: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_15, memory_format = torch.channels_last);  mul_15 = None

        # No stacktrace found for following nodes
        clone_default_21: "f32[64, 32, 3, 3]" = torch.ops.aten.clone.default(primals_22, memory_format = torch.channels_last);  primals_22 = None

        # File: /work/main/bessemer/zoo/small.py:121 in forward, code: h = self.downs[i](h)
        convolution_backward_9 = torch.ops.aten.convolution_backward.default(clone_default_74, clone_default_19, clone_default_21, [64], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_74 = clone_default_19 = clone_default_21 = None
        getitem_47: "f32[4, 32, 16, 16]" = convolution_backward_9[0]
        getitem_48: "f32[64, 32, 3, 3]" = convolution_backward_9[1]
        clone_default_77: "f32[64, 32, 3, 3]" = torch.ops.aten.clone.default(getitem_48, memory_format = torch.contiguous_format);  getitem_48 = None
        getitem_49: "f32[64]" = convolution_backward_9[2];  convolution_backward_9 = None
        add_50: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(getitem_35, getitem_47);  getitem_35 = getitem_47 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        sigmoid_16: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_11)
        mul_156: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_50, sigmoid_16);  add_50 = None
        sub_26: "f32[4, 32, 16, 16]" = torch.ops.aten.sub.Tensor(1, sigmoid_16);  sigmoid_16 = None
        mul_157: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_11, sub_26);  add_11 = sub_26 = None
        add_51: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_157, 1);  mul_157 = None
        mul_158: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_156, add_51);  mul_156 = add_51 = None
        mul_159: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_158, convolution_5)
        view_default_32: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_159, [4, 32, 256]);  mul_159 = None
        sum_37: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_32, [2]);  view_default_32 = None
        view_default_33: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_158, [4, 32, 256])
        sum_38: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_33, [2]);  view_default_33 = None
        unsqueeze_100: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_20, 0)
        mul_160: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_37, unsqueeze_100);  unsqueeze_100 = None
        view_98: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_160, [4, 8, 4]);  mul_160 = None
        sum_39: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_98, [2]);  view_98 = None
        unsqueeze_101: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_20, 0)
        mul_161: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_38, unsqueeze_101);  unsqueeze_101 = None
        view_99: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_161, [4, 8, 4]);  mul_161 = None
        sum_40: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_99, [2]);  view_99 = None
        squeeze_12: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_7, [3]);  getitem_7 = None
        squeeze_13: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_12, [2]);  squeeze_12 = None
        alias_6: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_13);  squeeze_13 = None
        alias_32: "f32[4, 8]" = torch.ops.aten.alias.default(alias_6);  alias_6 = None
        mul_163: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_40, alias_32)
        sub_27: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_163, sum_39);  mul_163 = sum_39 = None
        squeeze_14: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_3, [3]);  rsqrt_3 = None
        squeeze_15: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_14, [2]);  squeeze_14 = None
        alias_7: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_15);  squeeze_15 = None
        alias_33: "f32[4, 8]" = torch.ops.aten.alias.default(alias_7);  alias_7 = None
        mul_164: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_27, alias_33);  sub_27 = None
        mul_165: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_164, alias_33);  mul_164 = None
        mul_166: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_165, alias_33);  mul_165 = None
        mul_167: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_166, 0.0009765625);  mul_166 = None
        neg_16: "f32[4, 8]" = torch.ops.aten.neg.default(mul_167)
        mul_168: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_16, alias_32);  neg_16 = None
        mul_169: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_40, alias_33);  sum_40 = None
        mul_170: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_169, 0.0009765625);  mul_169 = None
        sub_28: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_168, mul_170);  mul_168 = mul_170 = None
        unsqueeze_104: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_167, -1);  mul_167 = None
        unsqueeze_105: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_104, -1);  unsqueeze_104 = None
        unsqueeze_106: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_28, -1);  sub_28 = None
        unsqueeze_107: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_106, -1);  unsqueeze_106 = None
        view_default_34: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(mul_158, [4, 8, 4, 256]);  mul_158 = None
        unsqueeze_102: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_33, -1)
        view_100: "f32[1, 8, 4]" = torch.ops.aten.view.default(primals_20, [1, 8, 4]);  primals_20 = None
        mul_162: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(unsqueeze_102, view_100);  unsqueeze_102 = view_100 = None
        unsqueeze_103: "f32[4, 8, 4, 1]" = torch.ops.aten.unsqueeze.default(mul_162, -1);  mul_162 = None
        mul_171: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_34, unsqueeze_103);  view_default_34 = unsqueeze_103 = None
        view_default_35: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_5, [4, 8, 4, 256]);  convolution_5 = None
        mul_172: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_35, unsqueeze_105);  view_default_35 = unsqueeze_105 = None
        add_52: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(mul_171, mul_172);  mul_171 = mul_172 = None
        add_53: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(add_52, unsqueeze_107);  add_52 = unsqueeze_107 = None
        view_default_36: "f32[4, 32, 16, 16]" = torch.ops.aten.view.default(add_53, [4, 32, 16, 16]);  add_53 = None
        clone_default_78: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(view_default_36, memory_format = torch.channels_last);  view_default_36 = None
        view_104: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_37, [4, 8, 4]);  sum_37 = None
        view_105: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_38, [4, 8, 4])
        unsqueeze_108: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_32, -1);  alias_32 = None
        mul_173: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(view_105, unsqueeze_108);  view_105 = unsqueeze_108 = None
        sub_29: "f32[4, 8, 4]" = torch.ops.aten.sub.Tensor(view_104, mul_173);  view_104 = mul_173 = None
        unsqueeze_109: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_33, -1);  alias_33 = None
        mul_174: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(sub_29, unsqueeze_109);  sub_29 = unsqueeze_109 = None
        sum_41: "f32[8, 4]" = torch.ops.aten.sum.dim_IntList(mul_174, [0]);  mul_174 = None
        view_106: "f32[32]" = torch.ops.aten.view.default(sum_41, [32]);  sum_41 = None
        sum_42: "f32[32]" = torch.ops.aten.sum.dim_IntList(sum_38, [0]);  sum_38 = None
        add_6: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_4, 1e-05);  getitem_4 = None
        rsqrt_2: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_6);  add_6 = None
        view_7: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_16, [1, 8, 4, 1])
        mul_8: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_2, view_7);  view_7 = None
        as_strided_4: "f32[4, 32]" = torch.ops.aten.view.default(mul_8, [4, 32])
        unsqueeze_8: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_4, 2);  as_strided_4 = None
        unsqueeze_9: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_8, 3);  unsqueeze_8 = None
        mul_10: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_4, unsqueeze_9);  unsqueeze_9 = None
        neg_2: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_5)
        mul_9: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_2, mul_8);  neg_2 = mul_8 = None
        view_8: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_17, [1, 8, 4, 1]);  primals_17 = None
        add_7: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_9, view_8);  mul_9 = view_8 = None
        as_strided_5: "f32[4, 32]" = torch.ops.aten.view.default(add_7, [4, 32]);  add_7 = None
        unsqueeze_10: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_5, 2);  as_strided_5 = None
        unsqueeze_11: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_10, 3);  unsqueeze_10 = None
        add_8: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_10, unsqueeze_11);  mul_10 = unsqueeze_11 = None
        sigmoid_2: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_8)
        mul_11: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_8, sigmoid_2);  sigmoid_2 = None
        clone_default_15: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_11, memory_format = torch.channels_last);  mul_11 = None

        # No stacktrace found for following nodes
        clone_default_17: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_18, memory_format = torch.channels_last);  primals_18 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_backward_10 = torch.ops.aten.convolution_backward.default(clone_default_78, clone_default_15, clone_default_17, [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_78 = clone_default_15 = clone_default_17 = None
        getitem_50: "f32[4, 32, 16, 16]" = convolution_backward_10[0]
        getitem_51: "f32[32, 32, 3, 3]" = convolution_backward_10[1]
        clone_default_81: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(getitem_51, memory_format = torch.contiguous_format);  getitem_51 = None
        getitem_52: "f32[32]" = convolution_backward_10[2];  convolution_backward_10 = None
        sigmoid_17: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_8)
        mul_175: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(getitem_50, sigmoid_17);  getitem_50 = None
        sub_30: "f32[4, 32, 16, 16]" = torch.ops.aten.sub.Tensor(1, sigmoid_17);  sigmoid_17 = None
        mul_176: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_8, sub_30);  add_8 = sub_30 = None
        add_54: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_176, 1);  mul_176 = None
        mul_177: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_175, add_54);  mul_175 = add_54 = None
        mul_178: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(mul_177, convolution_4)
        view_default_37: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_178, [4, 32, 256]);  mul_178 = None
        sum_43: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_37, [2]);  view_default_37 = None
        view_default_38: "f32[4, 32, 256]" = torch.ops.aten.view.default(mul_177, [4, 32, 256])
        sum_44: "f32[4, 32]" = torch.ops.aten.sum.dim_IntList(view_default_38, [2]);  view_default_38 = None
        unsqueeze_110: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_16, 0)
        mul_179: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_43, unsqueeze_110);  unsqueeze_110 = None
        view_109: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_179, [4, 8, 4]);  mul_179 = None
        sum_45: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_109, [2]);  view_109 = None
        unsqueeze_111: "f32[1, 32]" = torch.ops.aten.unsqueeze.default(primals_16, 0)
        mul_180: "f32[4, 32]" = torch.ops.aten.mul.Tensor(sum_44, unsqueeze_111);  unsqueeze_111 = None
        view_110: "f32[4, 8, 4]" = torch.ops.aten.view.default(mul_180, [4, 8, 4]);  mul_180 = None
        sum_46: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_110, [2]);  view_110 = None
        squeeze_8: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_5, [3]);  getitem_5 = None
        squeeze_9: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_8, [2]);  squeeze_8 = None
        alias_4: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_9);  squeeze_9 = None
        alias_34: "f32[4, 8]" = torch.ops.aten.alias.default(alias_4);  alias_4 = None
        mul_182: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_46, alias_34)
        sub_31: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_182, sum_45);  mul_182 = sum_45 = None
        squeeze_10: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_2, [3]);  rsqrt_2 = None
        squeeze_11: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_10, [2]);  squeeze_10 = None
        alias_5: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_11);  squeeze_11 = None
        alias_35: "f32[4, 8]" = torch.ops.aten.alias.default(alias_5);  alias_5 = None
        mul_183: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_31, alias_35);  sub_31 = None
        mul_184: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_183, alias_35);  mul_183 = None
        mul_185: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_184, alias_35);  mul_184 = None
        mul_186: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_185, 0.0009765625);  mul_185 = None
        neg_17: "f32[4, 8]" = torch.ops.aten.neg.default(mul_186)
        mul_187: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_17, alias_34);  neg_17 = None
        mul_188: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_46, alias_35);  sum_46 = None
        mul_189: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_188, 0.0009765625);  mul_188 = None
        sub_32: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_187, mul_189);  mul_187 = mul_189 = None
        unsqueeze_114: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_186, -1);  mul_186 = None
        unsqueeze_115: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_114, -1);  unsqueeze_114 = None
        unsqueeze_116: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_32, -1);  sub_32 = None
        unsqueeze_117: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_116, -1);  unsqueeze_116 = None
        view_default_39: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(mul_177, [4, 8, 4, 256]);  mul_177 = None
        unsqueeze_112: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_35, -1)
        view_111: "f32[1, 8, 4]" = torch.ops.aten.view.default(primals_16, [1, 8, 4]);  primals_16 = None
        mul_181: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(unsqueeze_112, view_111);  unsqueeze_112 = view_111 = None
        unsqueeze_113: "f32[4, 8, 4, 1]" = torch.ops.aten.unsqueeze.default(mul_181, -1);  mul_181 = None
        mul_190: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_39, unsqueeze_113);  view_default_39 = unsqueeze_113 = None
        view_default_40: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_4, [4, 8, 4, 256]);  convolution_4 = None
        mul_191: "f32[4, 8, 4, 256]" = torch.ops.aten.mul.Tensor(view_default_40, unsqueeze_115);  view_default_40 = unsqueeze_115 = None
        add_55: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(mul_190, mul_191);  mul_190 = mul_191 = None
        add_56: "f32[4, 8, 4, 256]" = torch.ops.aten.add.Tensor(add_55, unsqueeze_117);  add_55 = unsqueeze_117 = None
        view_default_41: "f32[4, 32, 16, 16]" = torch.ops.aten.view.default(add_56, [4, 32, 16, 16]);  add_56 = None
        clone_default_82: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(view_default_41, memory_format = torch.channels_last);  view_default_41 = None
        view_115: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_43, [4, 8, 4]);  sum_43 = None
        view_116: "f32[4, 8, 4]" = torch.ops.aten.view.default(sum_44, [4, 8, 4])
        unsqueeze_118: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_34, -1);  alias_34 = None
        mul_192: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(view_116, unsqueeze_118);  view_116 = unsqueeze_118 = None
        sub_33: "f32[4, 8, 4]" = torch.ops.aten.sub.Tensor(view_115, mul_192);  view_115 = mul_192 = None
        unsqueeze_119: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_35, -1);  alias_35 = None
        mul_193: "f32[4, 8, 4]" = torch.ops.aten.mul.Tensor(sub_33, unsqueeze_119);  sub_33 = unsqueeze_119 = None
        sum_47: "f32[8, 4]" = torch.ops.aten.sum.dim_IntList(mul_193, [0]);  mul_193 = None
        view_117: "f32[32]" = torch.ops.aten.view.default(sum_47, [32]);  sum_47 = None
        sum_48: "f32[32]" = torch.ops.aten.sum.dim_IntList(sum_44, [0]);  sum_44 = None

        # No stacktrace found for following nodes
        clone_default_13: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_14, memory_format = torch.channels_last);  primals_14 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_backward_11 = torch.ops.aten.convolution_backward.default(clone_default_82, convolution_3, clone_default_13, [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_82 = convolution_3 = clone_default_13 = None
        getitem_53: "f32[4, 32, 16, 16]" = convolution_backward_11[0]
        getitem_54: "f32[32, 32, 3, 3]" = convolution_backward_11[1]
        clone_default_85: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(getitem_54, memory_format = torch.contiguous_format);  getitem_54 = None
        getitem_55: "f32[32]" = convolution_backward_11[2];  convolution_backward_11 = None
        add_3: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_2, 1e-05);  getitem_2 = None
        rsqrt_1: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_3);  add_3 = None
        view_4: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_10, [1, 8, 2, 1])
        mul_4: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_1, view_4);  view_4 = None
        as_strided_2: "f32[4, 16]" = torch.ops.aten.view.default(mul_4, [4, 16])
        unsqueeze_4: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_2, 2);  as_strided_2 = None
        unsqueeze_5: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_4, 3);  unsqueeze_4 = None
        mul_6: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_2, unsqueeze_5);  unsqueeze_5 = None
        neg_1: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_3)
        mul_5: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_1, mul_4);  neg_1 = mul_4 = None
        view_5: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_11, [1, 8, 2, 1]);  primals_11 = None
        add_4: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_5, view_5);  mul_5 = view_5 = None
        as_strided_3: "f32[4, 16]" = torch.ops.aten.view.default(add_4, [4, 16]);  add_4 = None
        unsqueeze_6: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_3, 2);  as_strided_3 = None
        unsqueeze_7: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_6, 3);  unsqueeze_6 = None
        add_5: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_6, unsqueeze_7);  mul_6 = unsqueeze_7 = None
        sigmoid_1: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_5)
        mul_7: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_5, sigmoid_1);  sigmoid_1 = None
        clone_default_9: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_7, memory_format = torch.channels_last);  mul_7 = None

        # No stacktrace found for following nodes
        clone_default_11: "f32[32, 16, 3, 3]" = torch.ops.aten.clone.default(primals_12, memory_format = torch.channels_last);  primals_12 = None

        # File: /work/main/bessemer/zoo/small.py:121 in forward, code: h = self.downs[i](h)
        convolution_backward_12 = torch.ops.aten.convolution_backward.default(getitem_53, clone_default_9, clone_default_11, [32], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  getitem_53 = clone_default_9 = clone_default_11 = None
        getitem_56: "f32[4, 16, 32, 32]" = convolution_backward_12[0]
        getitem_57: "f32[32, 16, 3, 3]" = convolution_backward_12[1]
        clone_default_87: "f32[32, 16, 3, 3]" = torch.ops.aten.clone.default(getitem_57, memory_format = torch.contiguous_format);  getitem_57 = None
        getitem_58: "f32[32]" = convolution_backward_12[2];  convolution_backward_12 = None
        add_57: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(getitem_26, getitem_56);  getitem_26 = getitem_56 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        sigmoid_18: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_5)
        mul_194: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_57, sigmoid_18);  add_57 = None
        sub_34: "f32[4, 16, 32, 32]" = torch.ops.aten.sub.Tensor(1, sigmoid_18);  sigmoid_18 = None
        mul_195: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_5, sub_34);  add_5 = sub_34 = None
        add_58: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_195, 1);  mul_195 = None
        mul_196: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_194, add_58);  mul_194 = add_58 = None
        mul_197: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_196, convolution_2)
        view_default_42: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_197, [4, 16, 1024]);  mul_197 = None
        sum_49: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_42, [2]);  view_default_42 = None
        view_default_43: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_196, [4, 16, 1024])
        sum_50: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_43, [2]);  view_default_43 = None
        unsqueeze_120: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_10, 0)
        mul_198: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_49, unsqueeze_120);  unsqueeze_120 = None
        view_120: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_198, [4, 8, 2]);  mul_198 = None
        sum_51: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_120, [2]);  view_120 = None
        unsqueeze_121: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_10, 0)
        mul_199: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_50, unsqueeze_121);  unsqueeze_121 = None
        view_121: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_199, [4, 8, 2]);  mul_199 = None
        sum_52: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_121, [2]);  view_121 = None
        squeeze_4: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_3, [3]);  getitem_3 = None
        squeeze_5: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_4, [2]);  squeeze_4 = None
        alias_2: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_5);  squeeze_5 = None
        alias_36: "f32[4, 8]" = torch.ops.aten.alias.default(alias_2);  alias_2 = None
        mul_201: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_52, alias_36)
        sub_35: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_201, sum_51);  mul_201 = sum_51 = None
        squeeze_6: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt_1, [3]);  rsqrt_1 = None
        squeeze_7: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_6, [2]);  squeeze_6 = None
        alias_3: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_7);  squeeze_7 = None
        alias_37: "f32[4, 8]" = torch.ops.aten.alias.default(alias_3);  alias_3 = None
        mul_202: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_35, alias_37);  sub_35 = None
        mul_203: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_202, alias_37);  mul_202 = None
        mul_204: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_203, alias_37);  mul_203 = None
        mul_205: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_204, 0.00048828125);  mul_204 = None
        neg_18: "f32[4, 8]" = torch.ops.aten.neg.default(mul_205)
        mul_206: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_18, alias_36);  neg_18 = None
        mul_207: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_52, alias_37);  sum_52 = None
        mul_208: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_207, 0.00048828125);  mul_207 = None
        sub_36: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_206, mul_208);  mul_206 = mul_208 = None
        unsqueeze_124: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_205, -1);  mul_205 = None
        unsqueeze_125: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_124, -1);  unsqueeze_124 = None
        unsqueeze_126: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_36, -1);  sub_36 = None
        unsqueeze_127: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_126, -1);  unsqueeze_126 = None
        view_default_44: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(mul_196, [4, 8, 2, 1024]);  mul_196 = None
        unsqueeze_122: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_37, -1)
        view_122: "f32[1, 8, 2]" = torch.ops.aten.view.default(primals_10, [1, 8, 2]);  primals_10 = None
        mul_200: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(unsqueeze_122, view_122);  unsqueeze_122 = view_122 = None
        unsqueeze_123: "f32[4, 8, 2, 1]" = torch.ops.aten.unsqueeze.default(mul_200, -1);  mul_200 = None
        mul_209: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_44, unsqueeze_123);  view_default_44 = unsqueeze_123 = None
        view_default_45: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_2, [4, 8, 2, 1024]);  convolution_2 = None
        mul_210: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_45, unsqueeze_125);  view_default_45 = unsqueeze_125 = None
        add_59: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(mul_209, mul_210);  mul_209 = mul_210 = None
        add_60: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(add_59, unsqueeze_127);  add_59 = unsqueeze_127 = None
        view_default_46: "f32[4, 16, 32, 32]" = torch.ops.aten.view.default(add_60, [4, 16, 32, 32]);  add_60 = None
        clone_default_88: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(view_default_46, memory_format = torch.channels_last);  view_default_46 = None
        view_126: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_49, [4, 8, 2]);  sum_49 = None
        view_127: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_50, [4, 8, 2])
        unsqueeze_128: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_36, -1);  alias_36 = None
        mul_211: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(view_127, unsqueeze_128);  view_127 = unsqueeze_128 = None
        sub_37: "f32[4, 8, 2]" = torch.ops.aten.sub.Tensor(view_126, mul_211);  view_126 = mul_211 = None
        unsqueeze_129: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_37, -1);  alias_37 = None
        mul_212: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(sub_37, unsqueeze_129);  sub_37 = unsqueeze_129 = None
        sum_53: "f32[8, 2]" = torch.ops.aten.sum.dim_IntList(mul_212, [0]);  mul_212 = None
        view_128: "f32[16]" = torch.ops.aten.view.default(sum_53, [16]);  sum_53 = None
        sum_54: "f32[16]" = torch.ops.aten.sum.dim_IntList(sum_50, [0]);  sum_50 = None
        add: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        view_1: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_6, [1, 8, 2, 1])
        mul: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt, view_1);  view_1 = None
        as_strided: "f32[4, 16]" = torch.ops.aten.view.default(mul, [4, 16])
        unsqueeze: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided, 2);  as_strided = None
        unsqueeze_1: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze, 3);  unsqueeze = None
        mul_2: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_1, unsqueeze_1);  unsqueeze_1 = None
        neg: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_1)
        mul_1: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg, mul);  neg = mul = None
        view_2: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_7, [1, 8, 2, 1]);  primals_7 = None
        add_1: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_1, view_2);  mul_1 = view_2 = None
        as_strided_1: "f32[4, 16]" = torch.ops.aten.view.default(add_1, [4, 16]);  add_1 = None
        unsqueeze_2: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_1, 2);  as_strided_1 = None
        unsqueeze_3: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_2, 3);  unsqueeze_2 = None
        add_2: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_2, unsqueeze_3);  mul_2 = unsqueeze_3 = None
        sigmoid: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_2)
        mul_3: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_2, sigmoid);  sigmoid = None
        clone_default_5: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_3, memory_format = torch.channels_last);  mul_3 = None

        # No stacktrace found for following nodes
        clone_default_7: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_8, memory_format = torch.channels_last);  primals_8 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_backward_13 = torch.ops.aten.convolution_backward.default(clone_default_88, clone_default_5, clone_default_7, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_88 = clone_default_5 = clone_default_7 = None
        getitem_59: "f32[4, 16, 32, 32]" = convolution_backward_13[0]
        getitem_60: "f32[16, 16, 3, 3]" = convolution_backward_13[1]
        clone_default_91: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(getitem_60, memory_format = torch.contiguous_format);  getitem_60 = None
        getitem_61: "f32[16]" = convolution_backward_13[2];  convolution_backward_13 = None
        sigmoid_19: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_2)
        mul_213: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(getitem_59, sigmoid_19);  getitem_59 = None
        sub_38: "f32[4, 16, 32, 32]" = torch.ops.aten.sub.Tensor(1, sigmoid_19);  sigmoid_19 = None
        mul_214: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_2, sub_38);  add_2 = sub_38 = None
        add_61: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_214, 1);  mul_214 = None
        mul_215: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_213, add_61);  mul_213 = add_61 = None
        mul_216: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(mul_215, convolution_1)
        view_default_47: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_216, [4, 16, 1024]);  mul_216 = None
        sum_55: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_47, [2]);  view_default_47 = None
        view_default_48: "f32[4, 16, 1024]" = torch.ops.aten.view.default(mul_215, [4, 16, 1024])
        sum_56: "f32[4, 16]" = torch.ops.aten.sum.dim_IntList(view_default_48, [2]);  view_default_48 = None
        unsqueeze_130: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_6, 0)
        mul_217: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_55, unsqueeze_130);  unsqueeze_130 = None
        view_131: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_217, [4, 8, 2]);  mul_217 = None
        sum_57: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_131, [2]);  view_131 = None
        unsqueeze_131: "f32[1, 16]" = torch.ops.aten.unsqueeze.default(primals_6, 0)
        mul_218: "f32[4, 16]" = torch.ops.aten.mul.Tensor(sum_56, unsqueeze_131);  unsqueeze_131 = None
        view_132: "f32[4, 8, 2]" = torch.ops.aten.view.default(mul_218, [4, 8, 2]);  mul_218 = None
        sum_58: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(view_132, [2]);  view_132 = None
        squeeze: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(getitem_1, [3]);  getitem_1 = None
        squeeze_1: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze, [2]);  squeeze = None
        alias: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_1);  squeeze_1 = None
        alias_38: "f32[4, 8]" = torch.ops.aten.alias.default(alias);  alias = None
        mul_220: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_58, alias_38)
        sub_39: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_220, sum_57);  mul_220 = sum_57 = None
        squeeze_2: "f32[4, 8, 1]" = torch.ops.prims.squeeze.default(rsqrt, [3]);  rsqrt = None
        squeeze_3: "f32[4, 8]" = torch.ops.prims.squeeze.default(squeeze_2, [2]);  squeeze_2 = None
        alias_1: "f32[4, 8]" = torch.ops.aten.alias.default(squeeze_3);  squeeze_3 = None
        alias_39: "f32[4, 8]" = torch.ops.aten.alias.default(alias_1);  alias_1 = None
        mul_221: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sub_39, alias_39);  sub_39 = None
        mul_222: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_221, alias_39);  mul_221 = None
        mul_223: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_222, alias_39);  mul_222 = None
        mul_224: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_223, 0.00048828125);  mul_223 = None
        neg_19: "f32[4, 8]" = torch.ops.aten.neg.default(mul_224)
        mul_225: "f32[4, 8]" = torch.ops.aten.mul.Tensor(neg_19, alias_38);  neg_19 = None
        mul_226: "f32[4, 8]" = torch.ops.aten.mul.Tensor(sum_58, alias_39);  sum_58 = None
        mul_227: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_226, 0.00048828125);  mul_226 = None
        sub_40: "f32[4, 8]" = torch.ops.aten.sub.Tensor(mul_225, mul_227);  mul_225 = mul_227 = None
        unsqueeze_134: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(mul_224, -1);  mul_224 = None
        unsqueeze_135: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_134, -1);  unsqueeze_134 = None
        unsqueeze_136: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(sub_40, -1);  sub_40 = None
        unsqueeze_137: "f32[4, 8, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_136, -1);  unsqueeze_136 = None
        view_default_49: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(mul_215, [4, 8, 2, 1024]);  mul_215 = None
        unsqueeze_132: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_39, -1)
        view_133: "f32[1, 8, 2]" = torch.ops.aten.view.default(primals_6, [1, 8, 2]);  primals_6 = None
        mul_219: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(unsqueeze_132, view_133);  unsqueeze_132 = view_133 = None
        unsqueeze_133: "f32[4, 8, 2, 1]" = torch.ops.aten.unsqueeze.default(mul_219, -1);  mul_219 = None
        mul_228: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_49, unsqueeze_133);  view_default_49 = unsqueeze_133 = None
        view_default_50: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_1, [4, 8, 2, 1024]);  convolution_1 = None
        mul_229: "f32[4, 8, 2, 1024]" = torch.ops.aten.mul.Tensor(view_default_50, unsqueeze_135);  view_default_50 = unsqueeze_135 = None
        add_62: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(mul_228, mul_229);  mul_228 = mul_229 = None
        add_63: "f32[4, 8, 2, 1024]" = torch.ops.aten.add.Tensor(add_62, unsqueeze_137);  add_62 = unsqueeze_137 = None
        view_default_51: "f32[4, 16, 32, 32]" = torch.ops.aten.view.default(add_63, [4, 16, 32, 32]);  add_63 = None
        clone_default_92: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(view_default_51, memory_format = torch.channels_last);  view_default_51 = None
        view_137: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_55, [4, 8, 2]);  sum_55 = None
        view_138: "f32[4, 8, 2]" = torch.ops.aten.view.default(sum_56, [4, 8, 2])
        unsqueeze_138: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_38, -1);  alias_38 = None
        mul_230: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(view_138, unsqueeze_138);  view_138 = unsqueeze_138 = None
        sub_41: "f32[4, 8, 2]" = torch.ops.aten.sub.Tensor(view_137, mul_230);  view_137 = mul_230 = None
        unsqueeze_139: "f32[4, 8, 1]" = torch.ops.aten.unsqueeze.default(alias_39, -1);  alias_39 = None
        mul_231: "f32[4, 8, 2]" = torch.ops.aten.mul.Tensor(sub_41, unsqueeze_139);  sub_41 = unsqueeze_139 = None
        sum_59: "f32[8, 2]" = torch.ops.aten.sum.dim_IntList(mul_231, [0]);  mul_231 = None
        view_139: "f32[16]" = torch.ops.aten.view.default(sum_59, [16]);  sum_59 = None
        sum_60: "f32[16]" = torch.ops.aten.sum.dim_IntList(sum_56, [0]);  sum_56 = None

        # No stacktrace found for following nodes
        clone_default_3: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_4, memory_format = torch.channels_last);  primals_4 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_backward_14 = torch.ops.aten.convolution_backward.default(clone_default_92, convolution, clone_default_3, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  clone_default_92 = convolution = clone_default_3 = None
        getitem_62: "f32[4, 16, 32, 32]" = convolution_backward_14[0]
        getitem_63: "f32[16, 16, 3, 3]" = convolution_backward_14[1]
        clone_default_95: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(getitem_63, memory_format = torch.contiguous_format);  getitem_63 = None
        getitem_64: "f32[16]" = convolution_backward_14[2];  convolution_backward_14 = None

        # No stacktrace found for following nodes
        clone_default_1: "f32[16, 3, 3, 3]" = torch.ops.aten.clone.default(primals_1, memory_format = torch.channels_last);  primals_1 = None

        # File: /work/main/bessemer/zoo/small.py:115 in forward, code: h = self.stem(pixel_values)
        convolution_backward_15 = torch.ops.aten.convolution_backward.default(getitem_62, clone_default, clone_default_1, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, True]);  getitem_62 = clone_default = clone_default_1 = None
        getitem_66: "f32[16, 3, 3, 3]" = convolution_backward_15[1]
        clone_default_96: "f32[16, 3, 3, 3]" = torch.ops.aten.clone.default(getitem_66, memory_format = torch.contiguous_format);  getitem_66 = None
        getitem_67: "f32[16]" = convolution_backward_15[2];  convolution_backward_15 = None
        return (clone_default_96, getitem_67, None, clone_default_95, getitem_64, view_139, sum_60, clone_default_91, getitem_61, view_128, sum_54, clone_default_87, getitem_58, clone_default_85, getitem_55, view_117, sum_48, clone_default_81, getitem_52, view_106, sum_42, clone_default_77, getitem_49, getitem_45, getitem_46, view_95, sum_36, getitem_42, getitem_43, view_84, sum_30, clone_default_73, getitem_40, clone_default_71, getitem_37, view_73, sum_24, clone_default_67, getitem_34, view_62, sum_18, clone_default_63, getitem_31, clone_default_61, getitem_28, view_51, sum_12, clone_default_57, getitem_25, view_40, sum_6, clone_default_53, getitem_22, None)
